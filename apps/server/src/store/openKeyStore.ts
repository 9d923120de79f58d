import type { ServerConfig } from '../config/ServerConfig.ts'
import { FileKeyBlobReader, FileKeyStore } from './FileKeyStore.ts'
import type { KeyBlobReader, KeyStore, KeyStoreLocation } from './KeyStore.ts'
import { PostgresKeyBlobReader } from './PostgresKeyBlobReader.ts'
import { PostgresKeyStore } from './PostgresKeyStore.ts'

/** Opens the configured key store: embedded files under `dataDir`, or PostgreSQL (`KEY_STORE`). */
export function openKeyStore(config: ServerConfig, dataDir: string): Promise<KeyStore> {
  const limits = { quotaBytes: config.TENANT_QUOTA_BYTES, maxKeySets: config.MAX_KEYSETS }
  if (config.KEY_STORE === 'file') return FileKeyStore.open(dataDir, limits)
  return PostgresKeyStore.open(config.KEY_STORE, limits, { maxKeySetBytes: config.MAX_KEYSET_BYTES })
}

/** The reader a worker opens for a store's location (its own connection for PostgreSQL). */
export function openKeyBlobReader(location: KeyStoreLocation): KeyBlobReader {
  return location.type === 'file' ? new FileKeyBlobReader(location.dir) : new PostgresKeyBlobReader(location.url)
}
