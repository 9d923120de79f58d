import { describe, expect, it } from 'vitest'
import { KeyCache } from './KeyCache.ts'

class Tracked {
  disposed = false
  dispose(): void {
    if (this.disposed) throw new Error('disposed twice')
    this.disposed = true
  }
}

function loader(value: Tracked, bytes: number) {
  return async () => ({ value, bytes })
}

describe('KeyCache', () => {
  it('hits, misses and evicts the least recently used within the byte budget', async () => {
    const cache = new KeyCache<Tracked>(100)
    const a = new Tracked()
    const b = new Tracked()
    const c = new Tracked()
    ;(await cache.acquire('a', loader(a, 40))).release()
    ;(await cache.acquire('b', loader(b, 40))).release()
    const hit = await cache.acquire('a', loader(new Tracked(), 40))
    expect(hit.hit).toBe(true)
    expect(hit.value).toBe(a)
    hit.release()
    ;(await cache.acquire('c', loader(c, 40))).release()
    // b was least recently used.
    expect(b.disposed).toBe(true)
    expect(a.disposed).toBe(false)
    expect(cache.stats()).toEqual({ bytes: 80, entries: 2, hits: 1, misses: 3, evictions: 1 })
  })

  it('never frees a value while a job uses it', async () => {
    const cache = new KeyCache<Tracked>(50)
    const a = new Tracked()
    const lease = await cache.acquire('a', loader(a, 40))
    ;(await cache.acquire('b', loader(new Tracked(), 40))).release()
    expect(a.disposed).toBe(false)
    lease.release()
    lease.release()
    expect(a.disposed).toBe(true)
  })

  it('lends values larger than the budget without caching them, and clears on shutdown', async () => {
    const cache = new KeyCache<Tracked>(10)
    const big = new Tracked()
    const lease = await cache.acquire('big', loader(big, 11))
    expect(cache.stats().entries).toBe(0)
    lease.release()
    expect(big.disposed).toBe(true)
    const small = new Tracked()
    ;(await cache.acquire('s', loader(small, 5))).release()
    cache.clear()
    expect(small.disposed).toBe(true)
    expect(cache.stats().bytes).toBe(0)
  })
})
