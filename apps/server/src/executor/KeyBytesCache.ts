import { LRUCache } from 'lru-cache'
import { CacheCounters, type CacheStats } from './CacheCounters.ts'
import { type KeySetRef, keySetCacheKey } from './keySetRef.ts'

/**
 * The node's middle key tier: an LRU, within a byte budget, of key sets in the form
 * workers load fastest — full form, uncompressed, re-saved by the worker that first read
 * them from the durable store (see `EvaluationKeys.saveFullForm` for the numbers). It
 * lives on the main thread and is shared by every worker of the node: a worker that
 * does not hold a key set gets these bytes with the job instead of fetching and
 * deserializing the seeded upload again. Entries are per key set version (content-
 * addressed: a replaced key set is a new entry; the old one ages out).
 */
export class KeyBytesCache {
  /** Undefined when the budget is 0 (the tier is off). */
  readonly #entries: LRUCache<string, Uint8Array> | undefined
  readonly #counters = new CacheCounters()

  constructor(budgetBytes: number) {
    this.#entries =
      budgetBytes > 0
        ? new LRUCache<string, Uint8Array>({
            maxSize: budgetBytes,
            // An entry larger than the whole budget is not cached at all.
            maxEntrySize: budgetBytes,
            sizeCalculation: (bytes) => Math.max(1, bytes.length),
            dispose: (_bytes, _key, reason) => {
              if (reason === 'evict') this.#counters.evictions++
            },
          })
        : undefined
  }

  /** The bytes of `keySet` (refreshing its recency), or undefined. */
  get(keySet: KeySetRef): Uint8Array | undefined {
    const found = this.#entries?.get(keySetCacheKey(keySet))
    this.#counters.lookup(found !== undefined)
    return found
  }

  /** Whether `keySet` is cached (no recency change, no counting). */
  has(keySet: KeySetRef): boolean {
    return this.#entries?.has(keySetCacheKey(keySet)) ?? false
  }

  /** The size of `keySet`'s bytes when cached (no recency change, no counting: for pricing). */
  sizeOf(keySet: KeySetRef): number | undefined {
    return this.#entries?.peek(keySetCacheKey(keySet))?.byteLength
  }

  /** Caches the bytes of `keySet`, evicting least recently used entries beyond the budget. */
  set(keySet: KeySetRef, bytes: Uint8Array): void {
    this.#entries?.set(keySetCacheKey(keySet), bytes)
  }

  /** Drops one entry (a deleted key set). */
  drop(keySet: KeySetRef): void {
    this.#entries?.delete(keySetCacheKey(keySet))
  }

  stats(): CacheStats {
    return this.#counters.stats(this.#entries)
  }
}
