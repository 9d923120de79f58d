/** Something the cache owns and must free on eviction (deserialized SEAL keys). */
export interface CachedValue {
  dispose(): void
}

interface Entry<V extends CachedValue> {
  value: V
  bytes: number
  /** Jobs using the value right now; an evicted entry is freed when the last one releases. */
  users: number
  evicted: boolean
}

/** A value lent out by the cache; call `release()` when the job is done with it. */
export interface CacheLease<V> {
  value: V
  hit: boolean
  release(): void
}

/** Hit/miss counters and the current size. */
export interface KeyCacheStats {
  bytes: number
  entries: number
  hits: number
  misses: number
  evictions: number
}

/**
 * A per-worker LRU of deserialized evaluation keys within a byte budget. Loading
 * seeded Galois keys costs milliseconds per request (and more at n=8192), so a
 * worker keeps the keys of its recent tenants. The cache owns every value: eviction
 * disposes it, but never while a job still uses it.
 */
export class KeyCache<V extends CachedValue> {
  readonly #budget: number
  readonly #entries = new Map<string, Entry<V>>()
  #bytes = 0
  #hits = 0
  #misses = 0
  #evictions = 0
  #version = 0

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes
  }

  /**
   * The value for `key`, loading it with `load` on a miss. A value larger than the
   * whole budget is still lent out, but freed on release instead of cached.
   */
  async acquire(key: string, load: () => Promise<{ value: V; bytes: number }>): Promise<CacheLease<V>> {
    const found = this.#entries.get(key)
    if (found) {
      this.#hits++
      // Re-insert: Map keeps insertion order, so the first entry is the least recently used.
      this.#entries.delete(key)
      this.#entries.set(key, found)
      return this.#lend(found, true)
    }
    this.#misses++
    const { value, bytes } = await load()
    // Another job of this worker may have loaded the same key meanwhile.
    const raced = this.#entries.get(key)
    if (raced) {
      value.dispose()
      return this.#lend(raced, true)
    }
    const entry: Entry<V> = { value, bytes, users: 0, evicted: false }
    if (bytes > this.#budget) {
      entry.evicted = true
      return this.#lend(entry, false)
    }
    this.#entries.set(key, entry)
    this.#bytes += bytes
    this.#version++
    this.#evictUntilWithinBudget()
    return this.#lend(entry, false)
  }

  #lend(entry: Entry<V>, hit: boolean): CacheLease<V> {
    entry.users++
    let released = false
    return {
      value: entry.value,
      hit,
      release: () => {
        if (released) return
        released = true
        entry.users--
        if (entry.evicted && entry.users === 0) entry.value.dispose()
      },
    }
  }

  #evictUntilWithinBudget(): void {
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#budget) return
      this.#entries.delete(key)
      this.#bytes -= entry.bytes
      this.#evictions++
      this.#version++
      entry.evicted = true
      if (entry.users === 0) entry.value.dispose()
    }
  }

  /** Drops every entry (shutdown); values in use are freed on release. */
  clear(): void {
    for (const entry of this.#entries.values()) {
      entry.evicted = true
      if (entry.users === 0) entry.value.dispose()
    }
    this.#entries.clear()
    this.#bytes = 0
    this.#version++
  }

  /** Bumped whenever the set of cached keys changes (the scheduler mirrors it). */
  get version(): number {
    return this.#version
  }

  /** The cached keys, least recently used first. */
  keys(): string[] {
    return [...this.#entries.keys()]
  }

  stats(): KeyCacheStats {
    return {
      bytes: this.#bytes,
      entries: this.#entries.size,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
    }
  }
}
