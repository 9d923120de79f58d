import { describe, expect, it } from 'vitest'
import { jobKeySetOf, keySetCacheKey, keySetOf, loadedKeySetRefOf } from './keySetRef.ts'

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
    expect(jobKeySetOf('search', loaded)).toEqual({ tenant: 'acme', sha256: 'ab12', use: 'search' })
    expect(jobKeySetOf('evaluate', search)).toEqual({ tenant: 'acme', sha256: 'ab12' })
    expect(keySetCacheKey(jobKeySetOf('search', loaded))).toBe('acme/ab12/search')
  })

  it('refuses a key that is not tenant/sha256/fingerprint[/search]', () => {
    for (const key of ['acme/ab12', 'acme/ab12/f00d/extra', 'acme/ab12/f00d/search/x', '//']) {
      expect(() => loadedKeySetRefOf(key)).toThrow(expect.objectContaining({ code: 'INTERNAL' }))
    }
  })
})
