import { encodeBatch, getHeContext, withScope } from '@sealbox/he-core'
import { resolveSearchConfig } from '@sealbox/he-core/search'
import { median } from '../core/stats.ts'
import { sealResidueWords } from '../harness/ops/sealResidueWords.ts'
import { kernelWithSealKeys } from './kernelWithSealKeys.ts'

/** Median ms of each kernel operation and of the model's unit, timed interleaved in one thread. */
export interface KernelOpTimes {
  /** The unit: SEAL's NTT-form plaintext multiply (node-seal) at the search's parameters. */
  unit: number
  rotation: number
  /** One hoisted rotation alone (the decomposition apart). */
  hoistedRotation: number
  decomposition: number
  /** One term of a long innerProduct (its sum reduced once per headroom). */
  multiply: number
  /** The kernel's mod switch of one ciphertext. */
  modSwitch: number
}

const PRODUCT_TERMS = 64

/**
 * Times he-ring's kernel operations and SEAL's NTT-form multiply at the search's default
 * parameters (n = 4096 [27, 28, 28], BGV), sample by sample in turn, so load bursts on the
 * shared machine fall on all of them and their ratios (what the cost model holds) stay fair.
 */
export async function measureKernelOps(samples: number): Promise<KernelOpTimes> {
  const config = resolveSearchConfig({ rows: 1, dimension: 16 })
  const ctx = await getHeContext(config.params)
  const n = config.polyModulusDegree
  using sealKeys = kernelWithSealKeys(ctx, [1, 2, 3, 4, 5, 6, 7])
  const { kernel, elements } = sealKeys
  const words = kernel.ciphertextWords
  const plainWords = kernel.L * n
  const times: Record<keyof KernelOpTimes, number[]> = {
    unit: [],
    rotation: [],
    hoistedRotation: [],
    decomposition: [],
    multiply: [],
    modSwitch: [],
  }
  withScope((scope) => {
    const { ciphertext, at: src } = sealKeys.encryptSample(scope)
    const first = scope.track(ctx.context.firstParmsId())
    const nttPlain = encodeBatch(
      ctx,
      Array.from({ length: n }, (_, i) => (i * 7) % 301),
      scope,
    )
    ctx.evaluator.plainTransformToNttInplace(nttPlain, first)
    const product = scope.track(new ctx.seal.Ciphertext())
    const dst = kernel.alloc(words)
    const plainAt = kernel.diagonals.alloc(plainWords)
    kernel.diagonals
      .words(plainAt, plainWords)
      .set(sealResidueWords(kernel, nttPlain.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, plainWords))
    const sources = Array.from({ length: PRODUCT_TERMS }, () => src)
    const plains = Array.from({ length: PRODUCT_TERMS }, () => plainAt)
    const switched = kernel.alloc(words)
    const time = (into: number[], record: boolean, fn: () => void, per = 1) => {
      const started = performance.now()
      fn()
      if (record) into.push((performance.now() - started) / per)
    }
    for (let i = 0; i < samples + 3; i++) {
      const record = i >= 3
      time(times.unit, record, () => ctx.evaluator.multiplyPlain(ciphertext, nttPlain, product))
      time(times.rotation, record, () => kernel.rotate(dst, src, elements[0] as number))
      time(times.decomposition, record, () => kernel.decompose(src))
      for (const element of elements) time(times.hoistedRotation, record, () => kernel.rotateHoisted(dst, src, element))
      time(times.multiply, record, () => kernel.innerProduct(dst, sources, plains), PRODUCT_TERMS)
      time(times.modSwitch, record, () => kernel.modSwitch(switched, src))
    }
  })
  return {
    unit: median(times.unit),
    rotation: median(times.rotation),
    hoistedRotation: median(times.hoistedRotation),
    decomposition: median(times.decomposition),
    multiply: median(times.multiply),
    modSwitch: median(times.modSwitch),
  }
}
