import { getHeContext, withScope } from '@sealbox/he-core'
import { resolveSearchConfig } from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { sealResidueWords } from '../harness/ops/sealResidueWords.ts'
import { kernelWithSealKeys } from './kernelWithSealKeys.ts'
import { measureKernelOps } from './measureKernelOps.ts'
import { HOISTED_ROTATIONS, measureRotationCosts } from './measureRotations.ts'

describe('kernelWithSealKeys', () => {
  it("rotates a SEAL ciphertext with SEAL's own keys to SEAL's rotateRows, word for word", async () => {
    const ctx = await getHeContext(resolveSearchConfig({ rows: 1, dimension: 16 }).params)
    using sealKeys = kernelWithSealKeys(ctx, [1, 3])
    const { kernel, keys, elements } = sealKeys
    expect(keys.galoisSteps).toEqual([1, 3])
    withScope((scope) => {
      const { ciphertext, at } = sealKeys.encryptSample(scope)
      const words = kernel.ciphertextWords
      for (const [index, step] of [1, 3].entries()) {
        const rotated = scope.track(new ctx.seal.Ciphertext())
        ctx.evaluator.rotateRows(ciphertext, step, keys.galoisKeys as never, rotated)
        const dst = kernel.alloc(words)
        kernel.rotate(dst, at, elements[index] as number)
        const expected = sealResidueWords(kernel, rotated.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, words)
        expect(kernel.words(dst, words)).toEqual(expected)
      }
    })
    sealKeys[Symbol.dispose]()
    expect(keys.disposed).toBe(true)
  })

  it('serves both kernel benches: every figure a positive time', async () => {
    const ops = await measureKernelOps(2)
    for (const [name, ms] of Object.entries(ops)) expect(ms, name).toBeGreaterThan(0)
    const rotations = await measureRotationCosts(2)
    expect(rotations.hoistedBatch).toBe(HOISTED_ROTATIONS)
    // One sample per rotation, the hoisted ones HOISTED_ROTATIONS to a sample.
    for (const [spread, samples] of [
      [rotations.kernel, 2],
      [rotations.sealWasm, 2],
      [rotations.decomposition, 2],
      [rotations.hoisted, 2 * HOISTED_ROTATIONS],
    ] as const) {
      expect(spread.samples).toBe(samples)
      expect(spread.median).toBeGreaterThan(0)
    }
  })
})
