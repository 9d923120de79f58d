import { analyzeProgram, galoisElementOf } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { keyUsePartOf } from '../executor/KeyUse.ts'
import { keySetCacheKey } from '../executor/keySetRef.ts'
import type { KeySetRecord } from '../store/KeyStore.ts'
import { programKeysToLoad } from './programKeysToLoad.ts'

const N = 4096
const params = { scheme: 'bfv', polyModulusDegree: N } as const
const element = (step: number) => galoisElementOf(N, step)

function record(kinds: KeySetRecord['kinds'], steps: number[]): KeySetRecord {
  return {
    tenant: 't',
    id: 'k',
    keySetId: '0'.repeat(32),
    fingerprint: '1'.repeat(32),
    kinds,
    galoisElements: steps.map(element).sort((a, b) => a - b),
    bytes: 1,
    sha256: 'a'.repeat(64),
    createdAt: '',
    updatedAt: '',
  }
}

function analysis(steps: unknown[]) {
  return analyzeProgram({ version: 1, inputs: [{ name: 'x', kind: 'ciphertext' }], steps, outputs: ['r'] }, params)
}

const rotateOne = analysis([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }])
const squareRotate = analysis([
  { op: 'multiply', a: 'x', b: 'x', out: 'm' },
  { op: 'relinearize', a: 'm', out: 'm2' },
  { op: 'rotateRows', a: 'm2', steps: 1, out: 'r' },
])

describe('programKeysToLoad', () => {
  const big = record(
    ['relinKeys', 'galoisKeys'],
    Array.from({ length: 700 }, (_, i) => i + 1),
  )

  it('a rotation by one against 700 elements loads one, without the relinearization key', () => {
    expect(programKeysToLoad(rotateOne, big)).toEqual({
      load: 'part',
      use: { galoisElements: [element(1)], relinKeys: false },
    })
  })

  it('a program that relinearizes takes the relinearization key with its element', () => {
    expect(programKeysToLoad(squareRotate, big)).toEqual({
      load: 'part',
      use: { galoisElements: [element(1)], relinKeys: true },
    })
  })

  it('a program using every key of the set loads the whole set; one using none loads nothing', () => {
    expect(programKeysToLoad(squareRotate, record(['relinKeys', 'galoisKeys'], [1])).load).toBe('whole')
    const double = analysis([{ op: 'add', a: 'x', b: 'x', out: 'r' }])
    expect(programKeysToLoad(double, big)).toEqual({ load: 'none', use: { galoisElements: [], relinKeys: false } })
  })

  it('names each part apart from the whole set and from the part with the relinearization key', () => {
    const ref = { tenant: 't', sha256: 'a'.repeat(64) }
    const keys = [
      keySetCacheKey(ref),
      keySetCacheKey(keyUsePartOf(ref, { galoisElements: [element(1)], relinKeys: false })),
      keySetCacheKey(keyUsePartOf(ref, { galoisElements: [element(1)], relinKeys: true })),
      keySetCacheKey(keyUsePartOf(ref, { galoisElements: [], relinKeys: true })),
    ]
    expect(new Set(keys).size).toBe(keys.length)
  })
})
