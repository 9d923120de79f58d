import { HE_ERROR_HINTS, HE_ERROR_HTTP_STATUS, type HeErrorCode, isHeErrorCode } from './heErrorCodes.ts'

/** Plain-data form of an `HeError`, safe to post to a worker or send as JSON. */
export interface HeErrorJSON {
  code: HeErrorCode
  message: string
  /** Extra facts for programs (e.g. the step index, the field name). */
  details?: Record<string, unknown>
}

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

  toJSON(): HeErrorJSON {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details }
  }

  static fromJSON(json: HeErrorJSON): HeError {
    return new HeError(json.code, json.message, json.details === undefined ? {} : { details: json.details })
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
