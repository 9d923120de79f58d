import { RingError } from './RingError.ts'
import type { RnsKernelCore } from './RnsKernelCore.ts'
import type { PlacedPrime, RnsKernelTables } from './rnsKernelTables.ts'

/**
 * BGV's division by the last prime of a basis, rounded so the message stays exact mod t:
 * by the special prime P after a key switch (`bySpecialPrime`), or by the last data prime
 * (`modSwitch`). For each remaining prime, δ ≡ c mod the dropped prime and δ ≡ 0 mod t
 * (`modDownDelta`), then (c − δ)·prime⁻¹ (`modDownFinish`). Works in the kernel's heap,
 * on the scratch regions it was given.
 */
export class BgvModDown {
  readonly #kernel: RnsKernelCore
  readonly #tables: Pick<RnsKernelTables, 'modDown' | 'modSwitch'>
  /** Scratch: one polynomial (the dropped residues), δ, and a key switch's result at L + 1 primes. */
  readonly #scratch: { operandAt: number; deltaAt: number; resultAt: number }

  constructor(
    kernel: RnsKernelCore,
    tables: Pick<RnsKernelTables, 'modDown' | 'modSwitch'>,
    scratch: { operandAt: number; deltaAt: number; resultAt: number },
  ) {
    this.#kernel = kernel
    this.#tables = tables
    this.#scratch = scratch
  }

  /**
   * BGV's mod switch of the ciphertext at src (2·L·n words) to the next level: dst
   * (2·(L − 1)·n words) = (c − δ)·q⁻¹ at each remaining prime, q the last data prime and
   * δ ≡ c mod q, δ ≡ 0 mod t (SEAL's mod_t_and_divide_q_last_ntt_inplace). The message is
   * multiplied by q⁻¹ mod t, which SEAL's header records as the correction factor.
   */
  modSwitch(dst: number, src: number): void {
    const kernel = this.#kernel
    const { n, L } = kernel
    const x = kernel.exports
    const poly = n * 4
    if (L < 2) throw new RingError('INTERNAL', 'a mod switch needs two data primes')
    const { t } = this.#tables.modDown
    const sw = this.#tables.modSwitch
    const { operandAt: tl, deltaAt } = this.#scratch
    for (let K = 0; K < 2; K++) {
      kernel.words(tl, n).set(kernel.words(src + (K * L + L - 1) * poly, n))
      kernel.intt(tl, L - 1)
      for (let i = 0; i < L - 1; i++) {
        const c = kernel.primes[i] as PlacedPrime
        const out = dst + (K * (L - 1) + i) * poly
        kernel.words(out, n).fill(0)
        x.modDownDelta(deltaAt, tl, n, t, sw.k, sw.kq, c.p, c.one, sw.mod[i] as number, sw.modQ[i] as number)
        kernel.ntt(deltaAt, i)
        x.modDownFinish(out, src + (K * L + i) * poly, deltaAt, n, sw.inv[i] as number, sw.invQ[i] as number, c.p)
      }
    }
  }

  /** dst[K] += (result[K] − δ)·P⁻¹ at each data prime, for K = 0, 1 (BGV), result the key switch's scratch. */
  bySpecialPrime(dst: number): void {
    const kernel = this.#kernel
    const { n, L } = kernel
    const x = kernel.exports
    const poly = n * 4
    const { t, k, kq } = this.#tables.modDown
    const { resultAt, deltaAt } = this.#scratch
    for (let K = 0; K < 2; K++) {
      const tl = resultAt + (K * (L + 1) + L) * poly
      kernel.intt(tl, L)
      for (let i = 0; i < L; i++) {
        const c = kernel.primes[i] as PlacedPrime
        x.modDownDelta(deltaAt, tl, n, t, k, kq, c.p, c.one, c.specialMod, c.specialModQ)
        kernel.ntt(deltaAt, i)
        x.modDownFinish(
          dst + (K * L + i) * poly,
          resultAt + (K * (L + 1) + i) * poly,
          deltaAt,
          n,
          c.specialInv,
          c.specialInvQ,
          c.p,
        )
      }
    }
  }
}
