import { HeError } from '@sealbox/he-core'
import { STORE_RETRY_AFTER_SECONDS } from './KeyStore.ts'
import type { PostgresTimeouts } from './postgresTimeouts.ts'

/** SQLSTATEs that mean "the database is not reachable right now". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006'])
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'])
const LOCK_TIMEOUT = '55P03'
const STATEMENT_TIMEOUT = '57014'

/**
 * Maps a node-postgres failure to an HeError. Every failure of the database is
 * STORE_UNAVAILABLE (503 + Retry-After: nothing was written, the client may retry),
 * never a 500: a database that is down, restarting or out of connections, a statement
 * or lock wait past its limit, a pool with no free connection, or anything else the
 * driver reports (kept as the cause, for the log). The message names the limit that
 * was hit. HeErrors pass through.
 */
export function postgresError(error: unknown, action: string, timeouts?: PostgresTimeouts): HeError {
  if (error instanceof HeError) return error
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const options = (reason: StoreFailureReason) => ({
    cause: error,
    details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, reason },
  })
  const limit = (name: string, ms: number | undefined) => (ms === undefined ? name : `${name} (${ms} ms)`)
  if (code === LOCK_TIMEOUT) {
    return new HeError(
      'STORE_UNAVAILABLE',
      `the key store (PostgreSQL) waited longer than ${limit('KEY_STORE_LOCK_TIMEOUT_MS', timeouts?.lockMs)} for a lock while trying to ${action}; another write holds it, retry shortly`,
      options('lock-timeout'),
    )
  }
  if (code === STATEMENT_TIMEOUT) {
    return new HeError(
      'STORE_UNAVAILABLE',
      `the key store (PostgreSQL) took longer than ${limit('KEY_STORE_STATEMENT_TIMEOUT_MS', timeouts?.statementMs)} to ${action}; retry shortly`,
      options('statement-timeout'),
    )
  }
  // pg-pool's own message when no connection became free (or connected) in time.
  if (/timeout exceeded when trying to connect/i.test(message)) {
    return new HeError(
      'STORE_UNAVAILABLE',
      `no key-store (PostgreSQL) connection became free within ${limit('KEY_STORE_ACQUIRE_TIMEOUT_MS', timeouts?.acquireMs)} to ${action}; retry shortly`,
      options('acquire-timeout'),
    )
  }
  const unreachable =
    (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNO.has(code))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
  if (unreachable) {
    return new HeError(
      'STORE_UNAVAILABLE',
      `the key store (PostgreSQL) is unreachable while trying to ${action}; retry shortly`,
      options('unreachable'),
    )
  }
  return new HeError(
    'STORE_UNAVAILABLE',
    `the key store (PostgreSQL) failed to ${action}; the operator can see why in the server log`,
    options('failed'),
  )
}

/** Why the store failed (`details.reason` of STORE_UNAVAILABLE): a limit, the network, or anything else. */
export type StoreFailureReason = 'lock-timeout' | 'statement-timeout' | 'acquire-timeout' | 'unreachable' | 'failed'
