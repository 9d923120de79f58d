/** Everything that can stop a benchmark run, as a closed set. */
/**
 * - `INVALID_FLAGS`: a command line or setting the run cannot use; the message names the fix.
 * - `ENGINE_UNAVAILABLE` / `ENGINE_FAILED`: a browser or native engine is missing, or failed mid-run.
 * - `PROCESS_FAILED`: a helper the run drives failed (a load-generator process, a search worker
 *   thread, Toxiproxy, the server under test).
 * - `TIMEOUT`: something did not answer within its deadline.
 * - `INSTALL_FAILED`: `--install-browsers` could not install a package.
 * - `INTERNAL`: the benchmark broke one of its own rules (an unknown op, a missing fixture):
 *   a bug in bench, not in what it measures.
 */
export type BenchErrorCode =
  | 'INVALID_FLAGS'
  | 'ENGINE_UNAVAILABLE'
  | 'ENGINE_FAILED'
  | 'PROCESS_FAILED'
  | 'TIMEOUT'
  | 'INSTALL_FAILED'
  | 'INTERNAL'

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
