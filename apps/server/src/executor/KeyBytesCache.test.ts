import { describe, expect, it } from 'vitest'
import { KeyBytesCache } from './KeyBytesCache.ts'

describe('KeyBytesCache', () => {
  it('keeps the most recently used entries within its byte budget and counts hits', () => {
    const cache = new KeyBytesCache(300)
    cache.set('a', new Uint8Array(100))
    cache.set('b', new Uint8Array(100))
    cache.set('c', new Uint8Array(100))
    expect(cache.get('a')).toBeDefined()
    cache.set('d', new Uint8Array(100))
    expect(cache.has('b')).toBe(false)
    expect(cache.has('a')).toBe(true)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.stats()).toEqual({ bytes: 300, entries: 3, hits: 1, misses: 1, evictions: 1 })
  })

  it('ignores an entry larger than the budget and replaces an entry in place', () => {
    const cache = new KeyBytesCache(100)
    cache.set('big', new Uint8Array(101))
    expect(cache.has('big')).toBe(false)
    cache.set('k', new Uint8Array(60))
    cache.set('k', new Uint8Array(40))
    expect(cache.stats().bytes).toBe(40)
    cache.drop('k')
    expect(cache.stats()).toMatchObject({ bytes: 0, entries: 0 })
  })
})
