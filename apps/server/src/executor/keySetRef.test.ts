import { describe, expect, it } from 'vitest'
import { keySetCacheKey, keySetOf, loadedKeySetRefOf, searchKeySetOf } from './keySetRef.ts'

describe('keySetRef', () => {
  const loaded = { tenant: 'acme', sha256: 'ab12', fingerprint: 'f00d' }

  it('round-trips a loaded key set through its cache key', () => {
    expect(loadedKeySetRefOf(keySetCacheKey(loaded))).toEqual(loaded)
  })

  it('keys a key set apart from its loaded form, and drops the fingerprint on request', () => {
    expect(keySetCacheKey(keySetOf(loaded))).not.toBe(keySetCacheKey(loaded))
    expect(keySetOf(loaded)).toEqual({ tenant: 'acme', sha256: 'ab12' })
  })

  it("keeps a search's form apart from SEAL's keys, through every step", () => {
    const search = { ...loaded, use: 'search' as const }
    expect(loadedKeySetRefOf(keySetCacheKey(search))).toEqual(search)
    expect(keySetCacheKey(search)).not.toBe(keySetCacheKey(loaded))
    expect(keySetOf(search)).toEqual({ tenant: 'acme', sha256: 'ab12', use: 'search' })
  })

  it("names the kernel form, SEAL's part and the whole set apart, whatever the elements' order", () => {
    const ref = { tenant: 'acme', sha256: 'ab12' }
    const kernel = searchKeySetOf(ref, [9, 3], 'kernel')
    const part = searchKeySetOf(ref, [3, 9], 'seal')
    expect(kernel).toEqual({ tenant: 'acme', sha256: 'ab12+3.9', use: 'search' })
    expect(part).toEqual({ tenant: 'acme', sha256: 'ab12+3.9' })
    const keys = [kernel, part, ref].map((keySet) => keySetCacheKey(keySet))
    expect(new Set(keys).size).toBe(3)
    expect(keySetCacheKey(kernel)).toBe('acme/ab12+3.9/search')
    const loadedKernel = { ...kernel, fingerprint: 'f00d' }
    expect(loadedKeySetRefOf(keySetCacheKey(loadedKernel))).toEqual(loadedKernel)
    expect(keySetOf(loadedKernel)).toEqual(kernel)
  })

  it('refuses a key that is not tenant/sha256/fingerprint[/search]', () => {
    for (const key of ['acme/ab12', 'acme/ab12/f00d/extra', 'acme/ab12/f00d/search/x', '//']) {
      expect(() => loadedKeySetRefOf(key)).toThrow(expect.objectContaining({ code: 'INTERNAL' }))
    }
  })
})
