import { encodeBatch, galoisElementOf, type HeContext, KeySet, type SealScope } from '@sealbox/he-core'
import { parseGaloisKeyWords, RnsKernel } from '@sealbox/he-ring'
import type { Ciphertext } from 'node-seal/throws'
import { sealResidueWords } from '../harness/ops/sealResidueWords.ts'

/** he-ring's kernel holding SEAL's Galois keys for some steps; disposing it deletes the keys. */
export interface KernelWithSealKeys extends Disposable {
  readonly kernel: RnsKernel
  /** The SEAL keys the kernel read (public key and Galois keys for `steps`). */
  readonly keys: KeySet
  /** The Galois element of each step, in the order of `steps`. */
  readonly elements: number[]
  /**
   * One fresh BGV ciphertext of the slots `i % 301`, tracked by `scope`, and its residues
   * copied into a new buffer of the kernel's heap (`at`).
   */
  encryptSample(scope: SealScope): { ciphertext: Ciphertext; at: number }
}

/**
 * Makes keys for `steps` under `ctx` with SEAL and loads their uncompressed save into a new
 * `RnsKernel` (what he-core's galoisKeyWordsOf does for the search), so a bench times the
 * kernel against SEAL on the very same keys.
 */
export function kernelWithSealKeys(ctx: HeContext, steps: readonly number[]): KernelWithSealKeys {
  const n = ctx.params.polyModulusDegree
  const elements = steps.map((step) => galoisElementOf(n, step))
  const keys = KeySet.generate(ctx, { galois: { steps: [...steps] } })
  try {
    const kernel = new RnsKernel({
      polyModulusDegree: n,
      keyPrimes: ctx.coeffPrimes,
      plainModulus: ctx.plainModulus as bigint,
      galoisElements: elements,
    })
    const savedKeys = keys.galoisKeys?.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
    kernel.useKeys(parseGaloisKeyWords({ polyModulusDegree: n, keyPrimes: ctx.coeffPrimes }, savedKeys, elements))
    return {
      kernel,
      keys,
      elements,
      encryptSample(scope) {
        const plaintext = encodeBatch(
          ctx,
          Array.from({ length: n }, (_, i) => i % 301),
          scope,
        )
        const ciphertext = scope.track(new ctx.seal.Ciphertext())
        keys.encryptor.encrypt(plaintext, ciphertext)
        const words = kernel.ciphertextWords
        const at = kernel.alloc(words)
        kernel
          .words(at, words)
          .set(sealResidueWords(kernel, ciphertext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, words))
        return { ciphertext, at }
      },
      [Symbol.dispose]: () => keys.dispose(),
    }
  } catch (error) {
    keys.dispose()
    throw error
  }
}
