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
  readonly #budget: number
  readonly #entries = new Map<string, Uint8Array>()
  #bytes = 0
  #hits = 0
  #misses = 0
  #evictions = 0

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes
  }

  /** The bytes for `key` (refreshing its recency), or undefined. */
  get(key: string): Uint8Array | undefined {
    const found = this.#entries.get(key)
    if (found === undefined) {
      this.#misses++
      return undefined
    }
    this.#hits++
    this.#entries.delete(key)
    this.#entries.set(key, found)
    return found
  }

  /** Whether `key` is cached (no recency change, no counting). */
  has(key: string): boolean {
    return this.#entries.has(key)
  }

  /** Caches `bytes` under `key`, evicting least recently used entries beyond the budget. */
  set(key: string, bytes: Uint8Array): void {
    if (bytes.length > this.#budget) return
    const previous = this.#entries.get(key)
    if (previous) {
      this.#bytes -= previous.length
      this.#entries.delete(key)
    }
    this.#entries.set(key, bytes)
    this.#bytes += bytes.length
    for (const [oldest, value] of this.#entries) {
      if (this.#bytes <= this.#budget) break
      this.#entries.delete(oldest)
      this.#bytes -= value.length
      this.#evictions++
    }
  }

  /** Drops one entry (a deleted key set). */
  drop(key: string): void {
    const value = this.#entries.get(key)
    if (!value) return
    this.#entries.delete(key)
    this.#bytes -= value.length
  }

  stats(): KeyBytesCacheStats {
    return {
      bytes: this.#bytes,
      entries: this.#entries.size,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
    }
  }
}
