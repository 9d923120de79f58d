/*
 * When SealboxClient sends an idempotent call again. A proxy in front of several nodes
 * answers 502 when a node died under a request and 504 when one did not answer in
 * time; a node answers 503 + Retry-After while its queue is full, its event loop is
 * overloaded or its key store is unreachable. Each is worth another try, after the wait
 * the server asked for, or after a growing, jittered wait so that many clients do not
 * come back in the same instant.
 */

/** How a client retries idempotent calls; `attempts` counts the first one. */
export interface RetryPolicy {
  /** Tries in all, the first included (1: never retry). */
  attempts: number
  /** The first backoff; each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs: number
  /**
   * The longest wait between two tries, Retry-After included: a Retry-After up to this
   * is waited in full, so the retry comes after the window the server named; a longer
   * one is cut here. With `attempts`, it bounds a call's retries to
   * (attempts − 1) × (maxDelayMs + baseDelayMs).
   */
  maxDelayMs: number
}

/**
 * The client's default: 4 tries, waits of about 0.25, 0.5 and 1 s, or what Retry-After
 * says up to 10 s each (at most about 31 s of waiting in all). The rendered nginx site
 * answers "no node" with Retry-After 6 (its fail_timeout of 5 s, plus 1): waited in full,
 * each retry finds nginx trying the restarted nodes again, and three of them span 18 s.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 10_000 }

/** Statuses an idempotent call is sent again after. */
export const RETRIED_STATUSES: readonly number[] = [502, 503, 504]

/**
 * Server error codes that are not retried although their status is: the request's own
 * job ran out of time (retrying repeats the same work), or a tenant's stored index is
 * damaged (the operator must repair it).
 */
export const NOT_RETRIED_CODES: readonly string[] = ['TIMEOUT', 'TENANT_UNAVAILABLE']

/** Methods that are idempotent by HTTP's definition; a POST route says so in its contract (`idempotent`). */
export const IDEMPOTENT_METHODS: readonly string[] = ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']

/**
 * The wait before retry number `retry` (0 for the first retry): Retry-After when the
 * server gave one (plus up to one base delay of jitter), else "equal jitter" exponential
 * backoff — half the doubled base delay plus a random part of the other half. Never
 * above `maxDelayMs` plus the jitter.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0) {
    return Math.min(policy.maxDelayMs, retryAfterSeconds * 1000) + random() * policy.baseDelayMs
  }
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return backoff / 2 + (random() * backoff) / 2
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
