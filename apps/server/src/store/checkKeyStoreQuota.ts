import { HeError } from '@sealbox/he-core'
import type { KeyStoreLimits } from './KeyStore.ts'

/** What a tenant holds when a put is checked, read under the store's per-tenant lock. */
export interface TenantUsage {
  /** Bytes of its stored key sets, less the one this put replaces. */
  usedBytes: number
  /** Number of its stored key sets. */
  keySets: number
  /** The put replaces a key set of the same id (so it adds none). */
  replaces: boolean
}

/**
 * The per-tenant rules every `KeyStore` enforces on a put: the byte quota
 * (QUOTA_EXCEEDED) and the number of key sets (LIMIT_EXCEEDED). Each store calls it
 * inside the lock or transaction of the write, with the usage it read there, so two
 * concurrent puts can never both pass on the same headroom.
 */
export function checkKeyStoreQuota(limits: KeyStoreLimits, tenant: string, usage: TenantUsage, bytes: number): void {
  const after = usage.usedBytes + bytes
  if (after > limits.quotaBytes) {
    throw new HeError(
      'QUOTA_EXCEEDED',
      `storing ${bytes} bytes would bring tenant "${tenant}" to ${after} bytes; the quota is ${limits.quotaBytes}`,
      { details: { quotaBytes: limits.quotaBytes, usedBytes: usage.usedBytes, requestBytes: bytes } },
    )
  }
  if (!usage.replaces && usage.keySets >= limits.maxKeySets) {
    throw new HeError('LIMIT_EXCEEDED', `tenant "${tenant}" already has ${usage.keySets} key sets (the limit)`, {
      details: { limit: limits.maxKeySets },
    })
  }
}
