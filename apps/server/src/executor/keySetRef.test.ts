import { describe, expect, it } from 'vitest'
import { keySetCacheKey, keySetOf, loadedKeySetRefOf } from './keySetRef.ts'

describe('keySetRef', () => {
  const loaded = { tenant: 'acme', sha256: 'ab12', fingerprint: 'f00d' }

  it('round-trips a loaded key set through its cache key', () => {
    expect(loadedKeySetRefOf(keySetCacheKey(loaded))).toEqual(loaded)
  })

  it('keys a key set apart from its loaded form, and drops the fingerprint on request', () => {
    expect(keySetCacheKey(keySetOf(loaded))).not.toBe(keySetCacheKey(loaded))
    expect(keySetOf(loaded)).toEqual({ tenant: 'acme', sha256: 'ab12' })
  })

  it('refuses a key that is not tenant/sha256/fingerprint', () => {
    for (const key of ['acme/ab12', 'acme/ab12/f00d/extra', '//']) {
      expect(() => loadedKeySetRefOf(key)).toThrow(expect.objectContaining({ code: 'INTERNAL' }))
    }
  })
})
