import { encodeBatch, galoisElementOf, getHeContext, KeySet, withScope } from '@sealbox/he-core'
import { resolveSearchConfig } from '@sealbox/he-core/search'
import { parseGaloisKeyWords, RnsKernel } from '@sealbox/he-ring'
import { type Spread, spread } from '../core/stats.ts'

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
  const n = config.polyModulusDegree
  const steps = Array.from({ length: HOISTED_ROTATIONS }, (_, i) => i + 1)
  const elements = steps.map((step) => galoisElementOf(n, step))
  const element = elements[0] as number
  using keys = KeySet.generate(ctx, { galois: { steps } })
  const kernel = new RnsKernel({
    polyModulusDegree: n,
    keyPrimes: ctx.coeffPrimes,
    plainModulus: ctx.plainModulus as bigint,
    galoisElements: elements,
  })
  // The kernel reads SEAL's own uncompressed save of the keys (what he-core's galoisKeyWordsOf does).
  const savedKeys = keys.galoisKeys?.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
  kernel.useKeys(parseGaloisKeyWords({ polyModulusDegree: n, keyPrimes: ctx.coeffPrimes }, savedKeys, elements))
  const L = kernel.L
  const words = 2 * L * n
  const kernelMs: number[] = []
  const sealMs: number[] = []
  const hoistedMs: number[] = []
  const decompositionMs: number[] = []
  withScope((scope) => {
    const plaintext = encodeBatch(
      ctx,
      Array.from({ length: n }, (_, i) => i % 301),
      scope,
    )
    const encryptor = scope.track(new ctx.seal.Encryptor(ctx.context, keys.publicKey))
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    encryptor.encrypt(plaintext, ciphertext)
    const rotated = scope.track(new ctx.seal.Ciphertext())
    const saved = ciphertext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
    const residues = new Uint32Array(saved.slice(saved.byteLength - words * 8).buffer)
    const src = kernel.alloc(words)
    const dst = kernel.alloc(words)
    const view = kernel.words(src, words)
    for (let i = 0; i < words; i++) view[i] = residues[2 * i] as number
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
