import { encodeBatch, galoisElementOf, getHeContext, KeySet, withScope } from '@sealbox/he-core'
import { galoisKeyWordsOf, RnsKernel, resolveSearchConfig } from '@sealbox/he-core/search'
import { type Spread, spread } from './searchStats.ts'

/** One rotation (a Galois key switch by one step) at the search parameters, three ways, in one run. */
export interface RotationCosts {
  /** he-core's key-switching kernel (RnsKernel.rotate): u32 Shoup products, SIMD NTTs. */
  kernel: Spread
  /** SEAL's evaluator in WebAssembly (node-seal's rotateRows). */
  sealWasm: Spread
  /** Native SEAL 4.1 (the seal-python wheel), when the native harness ran. */
  native?: Spread
  /** Hoisted rotations (baby steps sharing one decomposition): not built; see SEARCH.md. */
  hoisted?: Spread
}

/**
 * Times single rotations of one fresh BGV ciphertext at n=4096 [27, 28, 28] (the search
 * default params): the kernel's and SEAL's in this thread, interleaved sample by sample
 * so load bursts hit both; `native` comes from the native harness of the same run.
 */
export async function measureRotationCosts(samples: number, native?: (samples: number) => Promise<number[]>) {
  const config = resolveSearchConfig({ rows: 1, dimension: 16 })
  const ctx = await getHeContext(config.params)
  const n = config.polyModulusDegree
  const element = galoisElementOf(n, 1)
  using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
  const kernel = new RnsKernel({
    polyModulusDegree: n,
    keyPrimes: ctx.coeffPrimes,
    plainModulus: ctx.plainModulus as bigint,
    galoisElements: [element],
  })
  kernel.useKeys(
    galoisKeyWordsOf({ polyModulusDegree: n, keyPrimes: ctx.coeffPrimes, seal: ctx.seal }, keys.galoisKeys as never, [
      element,
    ]),
  )
  const L = kernel.L
  const words = 2 * L * n
  const kernelMs: number[] = []
  const sealMs: number[] = []
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
    }
  })
  const costs: RotationCosts = { kernel: spread(kernelMs), sealWasm: spread(sealMs) }
  if (native) costs.native = spread((await native(samples + 3)).slice(3))
  return costs
}
