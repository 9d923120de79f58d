/**
 * What went wrong in the ring layer. A subset of he-core's `HeErrorCode`: he-core turns a
 * `RingError` into an `HeError` with the same code (and this error as its cause).
 */
export type RingErrorCode = 'INVALID_INPUT' | 'INVALID_PARAMS' | 'INVALID_ENVELOPE' | 'MISSING_KEY' | 'INTERNAL'

/**
 * The one error type of `@sealbox/he-ring`. `code` is from a closed set; `message` tells a
 * person what is wrong; `details` carries plain facts for programs (e.g. the missing elements).
 */
export class RingError extends Error {
  override readonly name = 'RingError'
  readonly code: RingErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(code: RingErrorCode, message: string, options: { details?: Record<string, unknown> } = {}) {
    super(message)
    this.code = code
    this.details = options.details
  }

  static is(value: unknown, code?: RingErrorCode): value is RingError {
    return value instanceof RingError && (code === undefined || value.code === code)
  }
}
