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
