import { HeError } from '@sealbox/he-core'
import { describeKeyStore } from '../config/keyStoreSetting.ts'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { FileKeyBlobReader } from './FileKeyBlobReader.ts'
import { FileKeyStore } from './FileKeyStore.ts'
import type { KeyBlobReader, KeyStore, KeyStoreLocation, StoreLog } from './KeyStore.ts'
import { PostgresKeyBlobReader } from './PostgresKeyBlobReader.ts'
import { PostgresKeyStore } from './PostgresKeyStore.ts'

/**
 * Opens the configured key store: embedded files under `dataDir`, or PostgreSQL
 * (`KEY_STORE`, with the KEY_STORE_*_TIMEOUT_MS limits). `log` hears what callers do
 * not: a tenant quarantined for a damaged index, a failing database.
 */
export function openKeyStore(config: ServerConfig, dataDir: string, log?: StoreLog): Promise<KeyStore> {
  const limits = { quotaBytes: config.TENANT_QUOTA_BYTES, maxKeySets: config.MAX_KEYSETS }
  if (config.KEY_STORE === 'file') return FileKeyStore.open(dataDir, limits, log ? { log } : {})
  return PostgresKeyStore.open(config.KEY_STORE, limits, {
    maxKeySetBytes: config.MAX_KEYSET_BYTES,
    timeouts: {
      statementMs: config.KEY_STORE_STATEMENT_TIMEOUT_MS,
      lockMs: config.KEY_STORE_LOCK_TIMEOUT_MS,
      acquireMs: config.KEY_STORE_ACQUIRE_TIMEOUT_MS,
    },
    ...(log ? { log } : {}),
  })
}

/** The reader a worker opens for a store's location (its own connection for PostgreSQL). */
export function openKeyBlobReader(location: KeyStoreLocation): KeyBlobReader {
  if (location.type === 'file') return new FileKeyBlobReader(location.dir)
  return new PostgresKeyBlobReader(location.url, location.timeouts ? { timeouts: location.timeouts } : {})
}

/** Where start-up attempts are reported (pino's shape). */
export interface StoreStartLog extends StoreLog {
  info(details: object, message: string): void
}

/** First wait between start-up attempts; doubled each time up to START_RETRY_MAX_MS. */
const START_RETRY_FIRST_MS = 500
const START_RETRY_MAX_MS = 5000

/**
 * Opens the key store at start, retrying an unreachable one with backoff (0.5 s, 1 s,
 * 2 s, … 5 s) for up to `KEY_STORE_CONNECT_TIMEOUT_MS`, one log line per failed attempt
 * naming the store (never its password) and the database's own reason (a wrong password
 * says so). Past the limit the last STORE_UNAVAILABLE is thrown, its message carrying
 * that reason: main prints it on one line and exits 1 (systemd then restarts the node).
 * `storeLog` is what the opened store reports to afterwards.
 */
export async function openKeyStoreAtStart(
  config: ServerConfig,
  dataDir: string,
  log: StoreStartLog,
  storeLog: StoreLog = log,
): Promise<KeyStore> {
  const store = describeKeyStore(config.KEY_STORE)
  const deadline = Date.now() + config.KEY_STORE_CONNECT_TIMEOUT_MS
  let wait = START_RETRY_FIRST_MS
  for (let attempt = 1; ; attempt++) {
    try {
      const opened = await openKeyStore(config, dataDir, storeLog)
      if (attempt > 1) log.info({ store, attempt }, `key store ${store} opened after ${attempt} attempts`)
      return opened
    } catch (error) {
      if (!(error instanceof HeError) || error.code !== 'STORE_UNAVAILABLE') throw error
      const reason = databaseReason(error)
      const left = deadline - Date.now()
      if (left <= 0) {
        throw new HeError(
          'STORE_UNAVAILABLE',
          `cannot open the key store ${store} after ${attempt} attempt${attempt === 1 ? '' : 's'} (KEY_STORE_CONNECT_TIMEOUT_MS ${config.KEY_STORE_CONNECT_TIMEOUT_MS}): ${reason}`,
          { cause: error },
        )
      }
      const delay = Math.min(wait, left)
      log.warn(
        { store, attempt, retryInMs: delay, reason },
        `key store ${store} not reachable at start (attempt ${attempt}): ${reason}; retrying in ${(delay / 1000).toFixed(1)} s`,
      )
      await new Promise((resolve) => setTimeout(resolve, delay))
      wait = Math.min(wait * 2, START_RETRY_MAX_MS)
    }
  }
}

/** The database's own words for a failure (its cause), else the store's message. */
function databaseReason(error: HeError): string {
  const cause = error.cause
  const text = cause instanceof Error && cause.message !== '' ? cause.message : error.message
  const code = (cause as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? `${text} (${code})` : text
}
