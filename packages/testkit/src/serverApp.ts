import { fileURLToPath } from 'node:url'

/**
 * The sealbox server in this workspace, as a process: testkit starts it by path and never
 * imports it (the server's own tests depend on testkit, so an import would be a cycle).
 */
export const SERVER_APP_DIR = fileURLToPath(new URL('../../../apps/server/', import.meta.url))
/** The server from source, run with `node --conditions=@sealbox/source`. */
export const SOURCE_MAIN = fileURLToPath(new URL('src/main.ts', `file://${SERVER_APP_DIR}`))
/** The built server (`npm run build`), run by plain Node without `--conditions`. */
export const BUILT_MAIN = fileURLToPath(new URL('dist/main.js', `file://${SERVER_APP_DIR}`))

/**
 * Every setting the server reads from its environment (its `CONFIG_KEYS`): `serverEnv`
 * removes them from what a server process inherits. The server's test
 * `test/serverSettingNames.test.ts` fails when this list and `CONFIG_KEYS` differ.
 */
export const SERVER_SETTING_NAMES: readonly string[] = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'EXECUTOR',
  'WORKERS',
  'DATABASE',
  'SYNTHETIC_ROWS',
  'SYNTHETIC_DIM',
  'SYNTHETIC_SEED',
  'SEARCH_CACHE',
  'SEARCH_SPLIT_BLOCKS',
  'SEARCH_CLUSTERS',
  'SEARCH_SHARD',
  'SEARCH_PROFILE',
  'SEARCH_SCHEME',
  'SEARCH_METRIC',
  'SEARCH_BABY_STEPS',
  'SEARCH_BABY_STEP',
  'SEARCH_HOIST_BABY_STEPS',
  'MODE',
  'TOKENS',
  'TOKENS_FILE',
  'KEY_STORE',
  'KEY_STORE_STALE_MS',
  'KEY_STORE_CONNECT_TIMEOUT_MS',
  'KEY_STORE_KERNEL_FORMS',
  'KEY_STORE_STATEMENT_TIMEOUT_MS',
  'KEY_STORE_LOCK_TIMEOUT_MS',
  'KEY_STORE_ACQUIRE_TIMEOUT_MS',
  'SCHEDULING',
  'KEY_CACHE_BYTES',
  'KEY_BYTES_CACHE_BYTES',
  'QUEUE_SIZE',
  'TENANT_QUEUE_SIZE',
  'REQUEST_TIMEOUT_MS',
  'ALLOW_EXECUTOR_OVERRIDE',
  'MAX_POLY_DEGREE',
  'TENANT_QUOTA_BYTES',
  'MAX_KEYSET_BYTES',
  'MAX_KEYSETS',
  'MAX_REQUEST_BYTES',
  'RECEIVING_BYTES',
  'ADDRESS_RECEIVING_BYTES',
  'TENANT_RECEIVING_BYTES',
  'MAX_QUERIES_PER_SEARCH',
  'MAX_PROGRAM_STEPS',
  'SEAL_ERROR_RECYCLE',
  'MAX_PROGRAM_COST',
  'MAX_JOB_HEAP_BYTES',
  'WORKER_HEAP_RECYCLE_BYTES',
  'WORKER_HEAP_BYTES',
  'MAX_INLINE_COST',
  'INLINE_MAX_JOB_MS',
  'INLINE_BUDGET_MS',
  'INLINE_BUDGET_WINDOW_MS',
  'TENANT_COST_BUDGET',
  'ADDRESS_COST_BUDGET',
  'TENANT_COST_WINDOW_MS',
  'EXECUTOR_OVERRIDE_RATE',
  'EXECUTOR_OVERRIDE_BURST',
  'WEB_DIST',
  'FAULT_INJECTION',
  'LOG_LEVEL',
  'SHUTDOWN_TIMEOUT_MS',
  'MAX_EVENT_LOOP_DELAY_MS',
  'CORS_ORIGINS',
  'SESSION_RATE',
  'SESSION_BURST',
  'MAX_ANONYMOUS_TENANTS',
  'ANONYMOUS_STORAGE_BYTES',
]
