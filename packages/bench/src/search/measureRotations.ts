import { getHeContext, withScope } from '@sealbox/he-core'
import { resolveSearchConfig } from '@sealbox/he-core/search'
import { type Spread, spread } from '../core/stats.ts'
import { kernelWithSealKeys } from './kernelWithSealKeys.ts'

/** One rotation (a Galois key switch by one step) at the search parameters, three ways, in one run. */
export interface RotationCosts {
  /** he-ring's key-switching kernel (RnsKernel.rotate): u32 Shoup products, SIMD NTTs. */
  kernel: Spread
  /** SEAL's evaluator in WebAssembly (node-seal's rotateRows). */
  sealWasm: Spread
  /** Native SEAL 4.1 (the seal-python wheel), when the native harness ran. */
  native?: Spread
  /**
   * Hoisted (RnsKernel.rotateHoisted): each of HOISTED_ROTATIONS rotations of the same
   * ciphertext by steps 1, 2, … sharing one decomposition, timed alone, plus its share of
   * the decomposition (what each of g − 1 baby steps costs at g = HOISTED_ROTATIONS + 1).
   */
  hoisted: Spread
  /** The decomposition alone (RnsKernel.decompose), once per hoisted batch. */
  decomposition: Spread
  /** Rotations per hoisted batch (HOISTED_ROTATIONS). */
  hoistedBatch: number
}

/** Rotations per hoisted batch in the table: the baby steps of g = 8. */
export const HOISTED_ROTATIONS = 7

/**
 * Times single rotations of one fresh BGV ciphertext at n=4096 [27, 28, 28] (the search
 * default params): the kernel's and SEAL's in this thread, interleaved sample by sample
 * so load bursts hit both; `native` comes from the native harness of the same run.
 */
export async function measureRotationCosts(samples: number, native?: (samples: number) => Promise<number[]>) {
  const config = resolveSearchConfig({ rows: 1, dimension: 16 })
  const ctx = await getHeContext(config.params)
  const steps = Array.from({ length: HOISTED_ROTATIONS }, (_, i) => i + 1)
  using sealKeys = kernelWithSealKeys(ctx, steps)
  const { kernel, keys, elements } = sealKeys
  const element = elements[0] as number
  const words = kernel.ciphertextWords
  const kernelMs: number[] = []
  const sealMs: number[] = []
  const hoistedMs: number[] = []
  const decompositionMs: number[] = []
  withScope((scope) => {
    const { ciphertext, at: src } = sealKeys.encryptSample(scope)
    const rotated = scope.track(new ctx.seal.Ciphertext())
    const dst = kernel.alloc(words)
    for (let i = 0; i < samples + 3; i++) {
      let started = performance.now()
      kernel.rotate(dst, src, element)
      if (i >= 3) kernelMs.push(performance.now() - started)
      started = performance.now()
      ctx.evaluator.rotateRows(ciphertext, 1, keys.galoisKeys as never, rotated)
      if (i >= 3) sealMs.push(performance.now() - started)
      // Each hoisted rotation timed alone like the single ones (a batch's mean would carry
      // every preemption of its seven), plus its share of this batch's decomposition.
      started = performance.now()
      kernel.decompose(src)
      const decomposition = performance.now() - started
      for (const rotation of elements) {
        started = performance.now()
        kernel.rotateHoisted(dst, src, rotation)
        if (i >= 3) hoistedMs.push(performance.now() - started + decomposition / elements.length)
      }
      if (i >= 3) decompositionMs.push(decomposition)
    }
  })
  const costs: RotationCosts = {
    kernel: spread(kernelMs),
    sealWasm: spread(sealMs),
    hoisted: spread(hoistedMs),
    decomposition: spread(decompositionMs),
    hoistedBatch: elements.length,
  }
  if (native) costs.native = spread((await native(samples + 3)).slice(3))
  return costs
}
