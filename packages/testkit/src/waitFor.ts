import { HeError } from '@sealbox/he-core'

/** How often `waitFor` asks again: a poll interval, short beside anything a test waits for. */
const POLL_MS = 20

/**
 * Waits for an event the caller can only observe by asking (a port that answers, a
 * queue depth in `/metrics`, a log line): polls `check` every POLL_MS until it returns
 * true. Errors from `check` mean "not yet" (a connection refused), except an HeError,
 * which gives up at once (the process being waited for exited). Throws TIMEOUT naming
 * `what` after `timeoutMs`, a deadline for a failure, never an ordering.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const ready = await Promise.resolve()
      .then(check)
      .catch((error: unknown) => {
        if (error instanceof HeError) throw error
        return false
      })
    if (ready) return
    if (Date.now() > until) throw new HeError('TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
