import { describe, expect, it } from 'vitest'
import { keySwitchingKeyBytes } from '../app/programAdmission.ts'
import { searchCacheBytes } from './searchCacheBytes.ts'

describe('searchCacheBytes', () => {
  const params = { polyModulusDegree: 4096, coeffModulusBits: [36, 36, 37] }
  const search = (keyForm: 'kernel' | 'seal') => ({ galoisElements: [3, 9], keyForm, config: { params } })
  // Per element: 2 components × 2 polynomials × 3 key-level primes × n words of 4 bytes.
  const kernelWords = 2 * 2 * 3 * 4096 * 4

  it("counts a search's key set by the form its search holds: the kernel's words or SEAL's part", () => {
    const loadedBytes = keySwitchingKeyBytes(params, 2) + 512
    expect(searchCacheBytes(search('kernel'), { loadedBytes, galoisElements: 2 })).toBe(2 * kernelWords)
    expect(searchCacheBytes(search('seal'), { loadedBytes, galoisElements: 2 })).toBe(keySwitchingKeyBytes(params, 2))
  })

  it('counts a key set of more elements by the whole set evaluate programs load, without kernel words', () => {
    const loadedBytes = keySwitchingKeyBytes(params, 40) + 512
    expect(searchCacheBytes(search('kernel'), { loadedBytes, galoisElements: 40 })).toBe(loadedBytes)
    expect(searchCacheBytes(search('seal'), { loadedBytes, galoisElements: 40 })).toBe(loadedBytes)
  })
})
