import { z } from 'zod'

/**
 * How long the PostgreSQL key store waits before it gives up and answers
 * STORE_UNAVAILABLE (503 + Retry-After) instead of letting a request hang: a
 * statement that runs too long, a lock held by someone else, and a pool whose
 * connections are all busy. Plain data: workers get the same values for their readers.
 */
export const PostgresTimeoutsSchema = z.object({
  /** `statement_timeout` of every connection (0: none). */
  statementMs: z.number().int().nonnegative(),
  /** `lock_timeout` of every connection (0: none). */
  lockMs: z.number().int().nonnegative(),
  /** pg-pool's `connectionTimeoutMillis`: waiting for a free connection, or for a new one to connect. */
  acquireMs: z.number().int().positive(),
})
export type PostgresTimeouts = z.infer<typeof PostgresTimeoutsSchema>

/**
 * The defaults (also those of KEY_STORE_STATEMENT_TIMEOUT_MS, KEY_STORE_LOCK_TIMEOUT_MS and
 * KEY_STORE_ACQUIRE_TIMEOUT_MS). The statement limit leaves room for a 64 MiB upload on a
 * busy machine; a lock is only ever held for one tenant's write, so waiting longer than a
 * few seconds for one means something is wrong.
 */
export const POSTGRES_TIMEOUT_DEFAULTS: PostgresTimeouts = { statementMs: 15_000, lockMs: 3_000, acquireMs: 5_000 }

/** node-postgres pool options that apply `timeouts` to every connection it opens. */
export function poolTimeoutOptions(timeouts: PostgresTimeouts): {
  statement_timeout: number
  lock_timeout: number
  connectionTimeoutMillis: number
} {
  return {
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    connectionTimeoutMillis: timeouts.acquireMs,
  }
}
