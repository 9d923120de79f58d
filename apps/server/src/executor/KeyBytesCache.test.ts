import { describe, expect, it } from 'vitest'
import { KeyBytesCache } from './KeyBytesCache.ts'

const ref = (sha256: string) => ({ tenant: 't', sha256 })

describe('KeyBytesCache', () => {
  it('keeps the most recently used entries within its byte budget and counts hits', () => {
    const cache = new KeyBytesCache(300)
    cache.set(ref('a'), new Uint8Array(100))
    cache.set(ref('b'), new Uint8Array(100))
    cache.set(ref('c'), new Uint8Array(100))
    expect(cache.get(ref('a'))).toBeDefined()
    cache.set(ref('d'), new Uint8Array(100))
    expect(cache.has(ref('b'))).toBe(false)
    expect(cache.has(ref('a'))).toBe(true)
    expect(cache.get(ref('b'))).toBeUndefined()
    expect(cache.stats()).toEqual({ bytes: 300, entries: 3, hits: 1, misses: 1, evictions: 1 })
  })

  it('ignores an entry larger than the budget and replaces an entry in place', () => {
    const cache = new KeyBytesCache(100)
    cache.set(ref('big'), new Uint8Array(101))
    expect(cache.has(ref('big'))).toBe(false)
    cache.set(ref('k'), new Uint8Array(60))
    cache.set(ref('k'), new Uint8Array(40))
    expect(cache.stats().bytes).toBe(40)
    cache.drop(ref('k'))
    expect(cache.stats()).toMatchObject({ bytes: 0, entries: 0 })
  })
})
