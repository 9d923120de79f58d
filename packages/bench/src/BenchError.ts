/** Everything that can stop a benchmark run, as a closed set. */
export type BenchErrorCode = 'INVALID_FLAGS' | 'ENGINE_UNAVAILABLE' | 'ENGINE_FAILED' | 'TIMEOUT' | 'INSTALL_FAILED'

/**
 * The error type of the bench package (a CLI, not an HTTP surface, so it has no status
 * table). `message` tells a person what to do next.
 */
export class BenchError extends Error {
  override readonly name = 'BenchError'
  readonly code: BenchErrorCode
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: BenchErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.details = options.details
  }
}
