import { LRUCache } from 'lru-cache'

/** Counters and size of the bytes cache. */
export interface KeyBytesCacheStats {
  bytes: number
  entries: number
  hits: number
  misses: number
  evictions: number
}

/**
 * The node's middle key tier: an LRU, within a byte budget, of key sets in the form
 * workers load fastest — full form, uncompressed, re-saved by the worker that first read
 * them from the durable store (see `EvaluationKeys.saveFullForm` for the numbers). It
 * lives on the main thread and is shared by every worker of the node: a worker that
 * does not hold a key set gets these bytes with the job instead of fetching and
 * deserializing the seeded upload again. Keys are `tenant/sha256` (content-addressed:
 * a replaced key set is a new entry; the old one ages out).
 */
export class KeyBytesCache {
  /** Undefined when the budget is 0 (the tier is off). */
  readonly #entries: LRUCache<string, Uint8Array> | undefined
  #hits = 0
  #misses = 0
  #evictions = 0

  constructor(budgetBytes: number) {
    this.#entries =
      budgetBytes > 0
        ? new LRUCache<string, Uint8Array>({
            maxSize: budgetBytes,
            // An entry larger than the whole budget is not cached at all.
            maxEntrySize: budgetBytes,
            sizeCalculation: (bytes) => Math.max(1, bytes.length),
            dispose: (_bytes, _key, reason) => {
              if (reason === 'evict') this.#evictions++
            },
          })
        : undefined
  }

  /** The bytes for `key` (refreshing its recency), or undefined. */
  get(key: string): Uint8Array | undefined {
    const found = this.#entries?.get(key)
    if (found === undefined) this.#misses++
    else this.#hits++
    return found
  }

  /** Whether `key` is cached (no recency change, no counting). */
  has(key: string): boolean {
    return this.#entries?.has(key) ?? false
  }

  /** Caches `bytes` under `key`, evicting least recently used entries beyond the budget. */
  set(key: string, bytes: Uint8Array): void {
    this.#entries?.set(key, bytes)
  }

  /** Drops one entry (a deleted key set). */
  drop(key: string): void {
    this.#entries?.delete(key)
  }

  stats(): KeyBytesCacheStats {
    return {
      bytes: this.#entries?.calculatedSize ?? 0,
      entries: this.#entries?.size ?? 0,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
    }
  }
}
