import { RingError } from './RingError.ts'
import type { RnsKernelCore } from './RnsKernelCore.ts'

/**
 * `RnsKernel.innerProduct`: target = Σ_a plaintexts[a] ⊙ ciphertexts[a], reduced mod each
 * data prime — ciphertexts of 2 × L residue polynomials in the kernel's heap, plaintexts of
 * L in its diagonal memory (both NTT form). The products sum unreduced in u64 words,
 * reduced once per `headroom` terms (`productHeadroom` of the data primes).
 */
export class DiagonalInnerProduct {
  readonly #kernel: RnsKernelCore
  readonly #headroom: number
  /** The u64 accumulator of one ciphertext, and a ciphertext of ones (filled by the kernel). */
  readonly #scratch: { acc64: number; ones: number }

  constructor(kernel: RnsKernelCore, headroom: number, scratch: { acc64: number; ones: number }) {
    this.#kernel = kernel
    this.#headroom = headroom
    this.#scratch = scratch
  }

  run(target: number, ciphertexts: readonly number[], plaintexts: readonly number[]): void {
    if (ciphertexts.length < plaintexts.length) {
      throw new RingError('INTERNAL', `${plaintexts.length} plaintexts but ${ciphertexts.length} ciphertexts`)
    }
    const kernel = this.#kernel
    const words = 2 * kernel.L * kernel.n
    const plainWords = kernel.L * kernel.n
    const { acc64, ones } = this.#scratch
    kernel.words(acc64, 2 * words).fill(0)
    for (const [a, plaintext] of plaintexts.entries()) {
      if (a > 0 && a % this.#headroom === 0) {
        // Fold the sum so far back in as one reduced term (× 1).
        this.#reduceCiphertext(target, acc64)
        kernel.words(acc64, 2 * words).fill(0)
        kernel.exports.mulAcc(acc64, target, ones, words)
      }
      const ciphertext = ciphertexts[a] as number
      kernel.exports.mulAccDiagonal(acc64, ciphertext, plaintext, plainWords, plainWords * 8, plainWords * 4)
    }
    this.#reduceCiphertext(target, acc64)
  }

  #reduceCiphertext(target: number, acc64: number): void {
    const { n, L } = this.#kernel
    for (let K = 0; K < 2; K++) {
      for (let i = 0; i < L; i++) {
        const poly = K * L + i
        this.#kernel.reduce(target + poly * n * 4, acc64 + poly * n * 8, n, i)
      }
    }
  }
}
