import { beforeAll, describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch } from '../codecs/batchCodec.ts'
import { decrypt, encryptSymmetric } from '../crypto/encrypt.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { decodeEvaluationKeys, EvaluationKeys } from './EvaluationKeys.ts'
import { exportEvaluationKeys } from './exportKeys.ts'
import { galoisElementOf } from './galoisElements.ts'
import { KeySet } from './KeySet.ts'

let ctx: HeContext
const STEPS = [1, 2, 3, 4, 5, 6]
/** What a search with baby step 2 uses: steps 1 and 2. */
const NEEDED_STEPS = [1, 2]

beforeAll(async () => {
  ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
})

describe('loading only some Galois elements of a key set', () => {
  const compressions = ['packed', 'zstd', 'none'] as const
  for (const compression of compressions) {
    it(`loads just the elements asked for (${compression}), and they rotate like the whole set`, () => {
      using keys = KeySet.generate(ctx, { relin: true, galois: { steps: STEPS } })
      const bytes = exportEvaluationKeys(keys, { compression })
      const needed = NEEDED_STEPS.map((step) => galoisElementOf(4096, step))
      // The context's encoder and decryptor are made on first use and live with it: made first.
      withScope((scope) => decrypt(keys, encryptSymmetric(keys, encodeBatch(ctx, [1], scope), scope), scope))
      const before = liveSealHandles()
      using whole = EvaluationKeys.load(ctx, bytes)
      using part = EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: needed })
      expect(part.galoisElements).toEqual([...needed].sort((a, b) => a - b))
      expect(part.relinKeys).toBeUndefined()
      expect(part.galoisKeys?.size()).toBe(needed.length)
      expect(part.heapBytes).toBeLessThan(whole.heapBytes / 2)
      // Oracle: the plain rotation of the rows.
      const values = Array.from({ length: 2048 }, (_, i) => (i * 7) % 100)
      withScope((scope) => {
        const ct = encryptSymmetric(keys, encodeBatch(ctx, values, scope), scope)
        for (const step of NEEDED_STEPS) {
          const rotated = scope.track(new ctx.seal.Ciphertext())
          ctx.evaluator.rotateRows(ct, step, part.galoisKeys as never, rotated)
          const row = decodeBatch(ctx, decrypt(keys, rotated, scope)).slice(0, 2048)
          expect(row.map(Number)).toEqual(values.map((_, i) => values[(i + step) % 2048]))
        }
      })
      // Its full form lists what it holds, and loads back as such.
      using again = EvaluationKeys.load(ctx, part.saveFullForm(ctx.seal, decodeEvaluationKeys(bytes)))
      expect(again.galoisElements).toEqual(part.galoisElements)
      again.dispose()
      part.dispose()
      whole.dispose()
      expect(liveSealHandles()).toBe(before)
    })
  }

  it('refuses, MISSING_KEY, an element the key set does not list', () => {
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const bytes = exportEvaluationKeys(keys)
    const error = heErrorOf(() => EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: [galoisElementOf(4096, 2)] }))
    expect(error.code).toBe('MISSING_KEY')
  })

  it('loads the relinearization key with a part only when asked, and it relinearizes', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: STEPS } })
    const bytes = exportEvaluationKeys(keys, { compression: 'packed' })
    withScope((scope) => decrypt(keys, encryptSymmetric(keys, encodeBatch(ctx, [1], scope), scope), scope))
    const before = liveSealHandles()
    using relinOnly = EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: [], relinKeys: true })
    expect(relinOnly.galoisKeys).toBeUndefined()
    expect(relinOnly.galoisElements).toEqual([])
    expect(relinOnly.relinKeys).toBeDefined()
    using both = EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: [galoisElementOf(4096, 1)], relinKeys: true })
    expect(both.galoisElements).toEqual([galoisElementOf(4096, 1)])
    expect(both.heapBytes).toBeGreaterThan(relinOnly.heapBytes)
    // Oracle: the plain product, after relinearizing back to two polynomials.
    withScope((scope) => {
      const ct = encryptSymmetric(keys, encodeBatch(ctx, [3, 5, 7], scope), scope)
      const product = scope.track(new ctx.seal.Ciphertext())
      ctx.evaluator.multiply(ct, ct, product)
      ctx.evaluator.relinearize(product, relinOnly.relinKeys as never, product)
      expect(product.size()).toBe(2)
      expect(
        decodeBatch(ctx, decrypt(keys, product, scope))
          .slice(0, 3)
          .map(Number),
      ).toEqual([9, 25, 49])
    })
    relinOnly.dispose()
    both.dispose()
    expect(liveSealHandles()).toBe(before)
  })

  it('refuses, MISSING_KEY, the relinearization key of a set without one', () => {
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const bytes = exportEvaluationKeys(keys)
    const error = heErrorOf(() => EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: [], relinKeys: true }))
    expect(error.code).toBe('MISSING_KEY')
  })
})
