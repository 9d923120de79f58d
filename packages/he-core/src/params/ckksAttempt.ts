import type { ChainAttempt } from './ChainAttempt.ts'
import { coeffPrimesProblem } from './modulusProblems.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { PRIME_BITS_MAX } from './ParamsSpec.ts'
import { ringReason } from './ringReason.ts'

/** CKKS: the outer primes hold the integer part on top of the scale (SEAL's 60/40/60 pattern). */
const CKKS_INTEGER_BITS = 20
/** CKKS: fresh encryption noise and rescaling round-off use about this many low bits of the scale. */
export const CKKS_NOISE_BITS = 20

/** CKKS at ring degree `n` under a budget of `max` bits: one rescaling prime per multiplication between two outer primes. */
export function ckksAttempt(needs: ParamsNeeds, n: number, max: number): ChainAttempt {
  const { depth } = needs
  const scaleBits = (needs.precisionBits ?? 0) + CKKS_NOISE_BITS
  const outer = Math.min(PRIME_BITS_MAX, scaleBits + CKKS_INTEGER_BITS)
  const chain = [outer, ...Array.from({ length: depth }, () => scaleBits), outer]
  const total = chain.reduce((a, b) => a + b, 0)
  // CoeffModulus.Create needs enough primes ≡ 1 (mod 2n) of each size: a prime has more
  // bits than 2n, and a small scale has few candidates (fewer still at a larger n).
  if (scaleBits <= Math.log2(n) + 1 || coeffPrimesProblem(n, chain)) return { fits: false, why: 'prime', n }
  if (total > max) return { fits: false, why: 'budget', n, total, max }
  return {
    fits: true,
    suggestion: {
      ok: true,
      params: { scheme: 'ckks', polyModulusDegree: n, coeffModulus: chain, scaleBits, security: needs.security },
      reasons: [
        ringReason(needs, n, max, total),
        `CKKS, because the values are real numbers; scale 2^${scaleBits}: about ${CKKS_NOISE_BITS} of its bits go to noise, leaving the ${needs.precisionBits} you asked for.`,
        `${depth} middle prime${depth === 1 ? '' : 's'} of ${scaleBits} bits: each multiplication is rescaled by one, returning to the same scale.`,
        `Outer primes of ${outer} bits: the first holds the integer part of a result, the last (the special prime) lets you make relinearization and Galois keys.`,
      ],
      totalBits: total,
      maxBits: max,
    },
  }
}
