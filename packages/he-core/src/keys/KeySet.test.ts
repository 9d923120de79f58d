import { beforeAll, describe, expect, it } from 'vitest'
import { encodeBatch } from '../codecs/batchCodec.ts'
import { decrypt, encrypt, encryptSymmetric, noiseBudget } from '../crypto/encrypt.ts'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { galoisElementOf, powerOfTwoSteps } from './galoisElements.ts'
import { KeySet } from './KeySet.ts'

let bfv: HeContext

beforeAll(async () => {
  bfv = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
})

describe('galoisElementOf', () => {
  it('matches the elements SEAL generates keys for', () => {
    using keys = KeySet.generate(bfv, { galois: { steps: [1, -3, 7, 0, 1000] } })
    for (const step of [1, -3, 7, 0, 1000]) expect(keys.galoisKeys?.hasKey(galoisElementOf(4096, step))).toBe(true)
    for (const step of [2, 3, -1, 999]) expect(keys.hasGaloisStep(step)).toBe(false)
    expect(keys.galoisSteps).toEqual([-3, 0, 1, 7, 1000])
    expect(() => galoisElementOf(4096, 2048)).toThrow(/must be < 2048/)
  })

  it('covers the power-of-two set', () => {
    using keys = KeySet.generate(bfv, { galois: 'powerOfTwo' })
    for (const step of powerOfTwoSteps(4096)) expect(keys.hasGaloisStep(step)).toBe(true)
    expect(keys.galoisSteps).toHaveLength(22)
  })
})

describe('KeySet', () => {
  it('generates the keys asked for with timings', () => {
    using keys = KeySet.generate(bfv, { relin: true, galois: { steps: [1] } })
    expect(keys.id).toMatch(/^[0-9a-f]{32}$/)
    expect(keys.relinKeys?.size()).toBe(1)
    expect(keys.timings.relinKeys).toBeGreaterThanOrEqual(0)
    expect(keys.timings.galoisKeys).toBeGreaterThanOrEqual(0)
  })

  it('serializes seeded evaluation keys at about half the size', () => {
    using keys = KeySet.generate(bfv, { relin: true, galois: { steps: [1, 4] } })
    const full = keys.serializeGaloisKeys('none', false).byteLength
    const seeded = keys.serializeGaloisKeys('none', true).byteLength
    expect(seeded / full).toBeGreaterThan(0.45)
    expect(seeded / full).toBeLessThan(0.55)
    const relin = keys.serializeRelinKeys('none', true).byteLength / keys.serializeRelinKeys('none', false).byteLength
    expect(relin).toBeLessThan(0.55)
    expect(keys.serializePublicKey('none', true).byteLength).toBeLessThan(
      keys.serializePublicKey('none', false).byteLength,
    )
  })

  it('rebuilds from a secret key: ciphertexts of the old key set decrypt under the new one', () => {
    using original = KeySet.generate(bfv)
    using restored = KeySet.fromSecretKey(bfv, original.secretKey, { id: original.id, relin: true })
    withScope((scope) => {
      const ct = encrypt(original, encodeBatch(bfv, [5, -7, 11], scope), scope)
      const pt = decrypt(restored, ct, scope)
      expect(bfv.batchEncoder?.decodeBigInt64(pt).slice(0, 3)).toEqual(BigInt64Array.from([5n, -7n, 11n]))
    })
  })

  it('adds relinearization keys and replaces Galois keys later, keeping the rest', () => {
    using keys = KeySet.generate(bfv)
    const publicKey = keys.publicKey
    expect(keys.relinKeys).toBeUndefined()
    keys.addRelinKeys()
    expect(keys.relinKeys?.size()).toBe(1)
    keys.setGaloisKeys({ steps: [1] })
    const handles = liveSealHandles()
    keys.setGaloisKeys({ steps: [2, 5] })
    expect(liveSealHandles()).toBe(handles)
    expect(keys.hasGaloisStep(5)).toBe(true)
    expect(keys.hasGaloisStep(1)).toBe(false)
    expect(keys.galoisSteps).toEqual([2, 5])
    expect(keys.publicKey).toBe(publicKey)
  })

  it('refuses key switching where the parameters cannot do it', async () => {
    const small = await getHeContext({ scheme: 'bfv', polyModulusDegree: 2048 })
    expect(() => KeySet.generate(small, { relin: true })).toThrow(HeError)
    expect(() => KeySet.generate(bfv, { galois: { steps: [5000] } })).toThrow(/out of range/)
  })

  it('encrypts with public and secret key and reports noise budgets', () => {
    using keys = KeySet.generate(bfv)
    withScope((scope) => {
      const pt = encodeBatch(bfv, [1, 2, 3], scope)
      const a = encrypt(keys, pt, scope)
      const b = encryptSymmetric(keys, pt, scope)
      // BFV n=4096 t=20 bits: fresh budgets NODE-SEAL-FACTS.md §7 (45 public-key / 47 symmetric).
      expect(noiseBudget(keys, a)).toBeGreaterThanOrEqual(40)
      expect(noiseBudget(keys, b)).toBeGreaterThanOrEqual(noiseBudget(keys, a))
    })
  })

  it('does not leak: generation, use and disposal, on success and failure', () => {
    const before = liveSealHandles()
    const ok = measureHeap(
      () => {
        using keys = KeySet.generate(bfv, { relin: true })
        keys.serializeRelinKeys('zstd', true)
        withScope((scope) => decrypt(keys, encrypt(keys, encodeBatch(bfv, [1, 2], scope), scope), scope))
      },
      { warmup: 10, iterations: 100 },
    )
    expect(ok.handlesAfter).toBe(before)
    expect(ok.heapAfter).toBe(ok.heapAfterWarmup)
    const failing = measureHeap(
      () => {
        using keys = KeySet.generate(bfv, { galois: { steps: [1] } })
        withScope((scope) => {
          encrypt(keys, encodeBatch(bfv, [1], scope), scope)
          encodeBatch(bfv, [10 ** 9], scope)
        })
      },
      { warmup: 10, iterations: 100, expectErrors: true },
    )
    expect(failing.handlesAfter).toBe(before)
    expect(failing.heapAfter).toBe(failing.heapAfterWarmup)
  })
})
