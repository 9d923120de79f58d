import { HE_ERROR_HINTS, HE_ERROR_HTTP_STATUS, type HeErrorCode, isHeErrorCode } from './heErrorCodes.ts'
import { plainDetails } from './plainDetails.ts'

/** Plain-data form of an `HeError`, safe to post to a worker or send as JSON. */
export interface HeErrorJSON {
  code: HeErrorCode
  message: string
  /** Extra facts for programs (e.g. the step index, the field name). */
  details?: Record<string, unknown>
  /**
   * What caused it, as text (SEAL's own words, an I/O error): for logs on the other
   * side of a thread or process boundary. Error responses never include it.
   */
  cause?: string
}

/** Longest cause text carried in `HeErrorJSON` (a log line, not a dump). */
const MAX_CAUSE_CHARS = 2000

/**
 * The one error type of sealbox. `code` is from a closed set; `message` tells a
 * person what to change; `cause` keeps the original (zod, SEAL, I/O) error.
 */
export class HeError extends Error {
  override readonly name = 'HeError'
  readonly code: HeErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: HeErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.details = options.details
  }

  /** HTTP status for this error's code. */
  get httpStatus(): number {
    return HE_ERROR_HTTP_STATUS[this.code]
  }

  /** A hint for people, generic to the code. */
  get hint(): string {
    return HE_ERROR_HINTS[this.code]
  }

  /** The plain form (`HeErrorJSON`): the cause as text, only the plain values of `details`. */
  toJSON(): HeErrorJSON {
    const cause = causeText(this.cause)
    return {
      code: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: plainDetails(this.details) }),
      ...(cause === undefined ? {} : { cause }),
    }
  }

  /** Rebuilds an error from its plain form; a cause text comes back as an `Error` with that message. */
  static fromJSON(json: HeErrorJSON): HeError {
    return new HeError(json.code, json.message, {
      ...(json.details === undefined ? {} : { details: json.details }),
      ...(json.cause === undefined ? {} : { cause: new Error(json.cause) }),
    })
  }

  static is(value: unknown, code?: HeErrorCode): value is HeError {
    return value instanceof HeError && (code === undefined || value.code === code)
  }
}

/** Recognises a serialized `HeError` (e.g. a JSON body or a worker reply). */
export function isHeErrorJSON(value: unknown): value is HeErrorJSON {
  return (
    typeof value === 'object' &&
    value !== null &&
    isHeErrorCode((value as { code?: unknown }).code) &&
    typeof (value as { message?: unknown }).message === 'string'
  )
}

/** `Name: message` of a cause and of the causes under it, for logs. */
function causeText(cause: unknown): string | undefined {
  if (cause === undefined || cause === null) return undefined
  const parts: string[] = []
  let current: unknown = cause
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      parts.push(current.name === 'Error' ? current.message : `${current.name}: ${current.message}`)
      current = current.cause
    } else {
      // A raw WebAssembly.Exception says nothing readable; SealException above it already did.
      if (typeof current === 'string') parts.push(current)
      break
    }
  }
  const text = parts.join(' ← ')
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}…` : text
}
