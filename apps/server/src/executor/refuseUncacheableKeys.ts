import { HeError } from '@sealbox/he-core'
import { type KeyLoadTarget, type KeyUploadSize, keyUploadSize } from '@sealbox/he-core/envelope'
import type { SearchSummary } from '../app/SearchSummary.ts'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { searchCacheBytes } from './searchCacheBytes.ts'

/**
 * Refuses (LIMIT_EXCEEDED) keys for the search that could never stay cached: larger, in
 * the form a cache holds them, than a worker's key cache (KEY_CACHE_BYTES) or the
 * node's bytes cache (KEY_BYTES_CACHE_BYTES) — every request with them would load them
 * all again from the store (`searchCacheBytes`). A budget of 0 (the tier is off)
 * refuses nothing; nor does a search not known yet (no warm worker).
 */
export function refuseUncacheableKeys(
  bytes: Uint8Array,
  options: {
    load: KeyLoadTarget | undefined
    search: SearchSummary | undefined
    config: Pick<ServerConfig, 'MAX_POLY_DEGREE' | 'KEY_CACHE_BYTES' | 'KEY_BYTES_CACHE_BYTES'>
  },
): void {
  const { load, search, config } = options
  if (!load || !search) return
  let size: KeyUploadSize
  try {
    size = keyUploadSize(bytes, { load, maxPolyModulusDegree: config.MAX_POLY_DEGREE })
  } catch {
    // Framing that does not read is the worker's to refuse (INVALID_ENVELOPE), before it inflates anything.
    return
  }
  if (!size.loaded) return
  const held = searchCacheBytes(search, size)
  const mib = (value: number) => Math.ceil(value / 2 ** 20).toLocaleString('en-US')
  const caches = [
    { setting: 'KEY_CACHE_BYTES', what: "a worker's key cache", bytes: held, budget: config.KEY_CACHE_BYTES },
    {
      setting: 'KEY_BYTES_CACHE_BYTES',
      what: "the node's key bytes cache",
      bytes: held,
      budget: config.KEY_BYTES_CACHE_BYTES,
    },
  ]
  for (const { setting, what, bytes, budget } of caches) {
    if (budget === 0 || bytes <= budget) continue
    const needed = search.galoisElements
    throw new HeError(
      'LIMIT_EXCEEDED',
      `this key set takes ${mib(bytes)} MiB in ${what} (${size.galoisElements.toLocaleString('en-US')} Galois elements), more than it holds: ${mib(budget)} MiB (${setting}), so every request with it would load it all again; upload only the Galois elements you use${needed.length > 0 ? ` (the search needs ${needed.join(', ')})` : ''}`,
      { details: { keyBytes: bytes, galoisElements: size.galoisElements, limit: budget, setting } },
    )
  }
}
