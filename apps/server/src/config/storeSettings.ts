import { z } from 'zod'
import { POSTGRES_TIMEOUT_DEFAULTS } from '../store/postgresTimeouts.ts'
import { int } from './configValues.ts'

/** Where key sets are stored and how long the store may take (ServerConfigSchema's key-store settings). */
export const STORE_SETTINGS = {
  KEY_STORE: z
    .string()
    .regex(
      /^(file|postgres|postgres(ql)?:\/\/.+)$/,
      'expected "file", "postgres" (from the PG* variables) or a postgres://… URL',
    )
    .default('file')
    .describe(
      'Where key sets are stored: `file` (embedded, under DATA_DIR), a PostgreSQL URL (`postgres://user:password@host:5432/db`) shared by several server nodes, or `postgres` for the PG* variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE…). Unset with PGHOST or PGDATABASE set: `postgres` (logged).',
    ),
  KEY_STORE_STALE_MS: int(0, 86_400_000)
    .default(120_000)
    .describe(
      'While the key store is unreachable, a key-set record the store confirmed at most this long ago is still used (the job runs on the worker that holds the keys); 0: nothing is served without the store. Bounds how long a key set deleted through another node just before an outage may still be used here.',
    ),
  KEY_STORE_CONNECT_TIMEOUT_MS: int(0, 3_600_000)
    .default(60_000)
    .describe(
      'At start, how long to keep retrying the key store (with backoff, one log line per attempt) before exiting 1; 0: one attempt.',
    ),
  KEY_STORE_STATEMENT_TIMEOUT_MS: int(0, 3_600_000)
    .default(POSTGRES_TIMEOUT_DEFAULTS.statementMs)
    .describe('PostgreSQL key store: longest statement before it is cancelled and answered 503 (0: no limit).'),
  KEY_STORE_LOCK_TIMEOUT_MS: int(0, 3_600_000)
    .default(POSTGRES_TIMEOUT_DEFAULTS.lockMs)
    .describe('PostgreSQL key store: longest wait for a lock another write holds before 503 (0: no limit).'),
  KEY_STORE_ACQUIRE_TIMEOUT_MS: int(1, 3_600_000)
    .default(POSTGRES_TIMEOUT_DEFAULTS.acquireMs)
    .describe('PostgreSQL key store: longest wait for a free (or new) connection of the pool before 503.'),
}
