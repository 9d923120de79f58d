import { LRUCache } from 'lru-cache'
import { CacheCounters, type CacheStats } from './CacheCounters.ts'

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

/**
 * A per-worker LRU of deserialized evaluation keys within a byte budget. Loading
 * seeded Galois keys costs milliseconds per request (and more at n=8192), so a
 * worker keeps the keys of its recent tenants. The cache owns every value: eviction
 * disposes it, but never while a job still uses it.
 */
export class KeyCache<V extends CachedValue> {
  readonly #budget: number
  readonly #entries: LRUCache<string, Entry<V>> | undefined
  readonly #counters = new CacheCounters()
  #version = 0

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes
    this.#entries =
      budgetBytes > 0
        ? new LRUCache<string, Entry<V>>({
            maxSize: budgetBytes,
            sizeCalculation: (entry) => Math.max(1, entry.bytes),
            dispose: (entry, _key, reason) => {
              // Out of the cache (evicted, deleted or cleared): freed now, or by the last job using it.
              if (reason === 'evict') this.#counters.evictions++
              this.#version++
              entry.evicted = true
              if (entry.users === 0) entry.value.dispose()
            },
          })
        : undefined
  }

  /**
   * The value for `key`, loading it with `load` on a miss. A value larger than the
   * whole budget is still lent out, but freed on release instead of cached.
   */
  async acquire(key: string, load: () => Promise<{ value: V; bytes: number }>): Promise<CacheLease<V>> {
    const found = this.#entries?.get(key)
    this.#counters.lookup(found !== undefined)
    if (found) return this.#lend(found, true)
    const { value, bytes } = await load()
    // Another job of this worker may have loaded the same key meanwhile.
    const raced = this.#entries?.get(key)
    if (raced) {
      value.dispose()
      return this.#lend(raced, true)
    }
    const entry: Entry<V> = { value, bytes, users: 0, evicted: false }
    if (!this.#entries || bytes > this.#budget) {
      entry.evicted = true
      return this.#lend(entry, false)
    }
    // Lent before it is inserted: if inserting evicts it at once, the lease still holds it.
    const lease = this.#lend(entry, false)
    this.#entries.set(key, entry)
    this.#version++
    return lease
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

  /** Drops every entry (shutdown); values in use are freed on release. */
  clear(): void {
    this.#entries?.clear()
    this.#version++
  }

  /** Bumped whenever the set of cached keys changes (the scheduler mirrors it). */
  get version(): number {
    return this.#version
  }

  /** The cached keys, least recently used first. */
  keys(): string[] {
    return this.#entries ? [...this.#entries.rkeys()] : []
  }

  stats(): CacheStats {
    return this.#counters.stats(this.#entries)
  }
}
