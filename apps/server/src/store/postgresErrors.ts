import { HeError } from '@sealbox/he-core'

/** SQLSTATE classes and codes that mean "the database is not reachable right now". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006'])
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'])

/**
 * Maps a node-postgres failure to an HeError. A database that is down, restarting or
 * out of connections is OVERLOADED (503 + Retry-After: the client may retry, nothing
 * was lost); anything else is INTERNAL with the driver's error as cause. HeErrors
 * pass through.
 */
export function postgresError(error: unknown, action: string): HeError {
  if (error instanceof HeError) return error
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  const unavailable =
    (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNO.has(code))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message)
  if (unavailable) {
    return new HeError(
      'OVERLOADED',
      `the key store (PostgreSQL) is unavailable while trying to ${action}; retry shortly`,
      {
        cause: error,
        details: { retryAfterSeconds: 2 },
      },
    )
  }
  return new HeError('INTERNAL', `the key store (PostgreSQL) failed to ${action}`, { cause: error })
}
