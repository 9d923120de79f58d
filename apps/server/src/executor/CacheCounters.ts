/** Size and counters of a key cache, for `/metrics`. */
export interface CacheStats {
  bytes: number
  entries: number
  hits: number
  misses: number
  evictions: number
}

/** The hit, miss and eviction counts of an LRU (which keeps its own size), as `CacheStats`. */
export class CacheCounters {
  hits = 0
  misses = 0
  evictions = 0

  /** Counts one lookup. */
  lookup(found: boolean): void {
    if (found) this.hits++
    else this.misses++
  }

  /** The cache's stats now, from its `lru-cache` (undefined when the cache is off: budget 0). */
  stats(lru: { readonly calculatedSize: number; readonly size: number } | undefined): CacheStats {
    return {
      bytes: lru?.calculatedSize ?? 0,
      entries: lru?.size ?? 0,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
    }
  }
}
