import type { ChainAttempt } from './ChainAttempt.ts'
import { coeffPrimesProblem, plainBitsFit } from './modulusProblems.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { PRIME_BITS_MAX, PRIME_COUNT_MAX } from './ParamsSpec.ts'
import { ringReason } from './ringReason.ts'

/**
 * BGV: bits a level's prime has above t · n^1.5: 4 more than the typical key set needs,
 * sized from the measured spread of a square's noise over key sets (see bgvAttempt).
 */
const BGV_LEVEL_BITS = 3
/** BGV: bits the first (last-level) prime needs above t · n. */
const BGV_LAST_LEVEL_BITS = 8

/**
 * BGV, levelled: one prime per multiplication, each mod-switched away after it, and a
 * first prime that still decrypts. A mod switch leaves a floor of noise F ≈ 3·t·√n (SEAL
 * rounds by a multiple of t); a square turns noise x into G·x², G different for every key
 * set; dividing by the level's prime q gives x' = G·x²/q + F. That settles (at about F)
 * only when 4·G·F < q — otherwise nothing stops it: the excess doubles at every level, and
 * a chain that looks fine for 5 levels decrypts to garbage at the 8th. At n = 32768, t of
 * 25 bits: F ≈ 2^34, G ≈ 2^9 for a typical key set, so 4·G·F ≈ 2^45 against q ≈ 2^46.x.
 * Measured on node-seal 7 at n = 32768, t of 25 bits (square, relinearize, mod-switch,
 * each chain under fresh keys; packages/bench/results/bgv-chains.md): G is fixed by the key
 * set (every fresh encryption under one key set gives the same budgets) and spreads over
 * 5–6 bits between key sets. Levels of t + ⌈1.5·log2 n⌉ − 1 bits (47) left the typical key set
 * 2 bits of margin; key sets whose G is 2 bits larger (2–5 % of them) ran out at the 7th or
 * 8th square, and that ciphertext really decrypted wrong. One bit more moved the typical
 * margin by one bit; a larger first prime nothing (the noise has already grown). So each
 * level gets 4 bits more (BGV_LEVEL_BITS = 3): to diverge, a key set's G must be 6 bits
 * above the typical one. Of 1400 key sets (n = 8192 and 32768) the worst was 2 bits above,
 * and the count falls 5–6 times per bit there: even extrapolated that slowly, 6 bits is
 * past the 99.99th percentile. The last level needs t + log2(n) + 7 (one bit less
 * failed); one more to spare.
 */
export function bgvAttempt(needs: ParamsNeeds, n: number, max: number): ChainAttempt {
  const t = needs.plainBits ?? 0
  const { depth } = needs
  if (!plainBitsFit(n, t)) return { fits: false, why: 'prime', n }
  const log2n = Math.log2(n)
  const first = t + log2n + BGV_LAST_LEVEL_BITS
  const level = t + Math.ceil(1.5 * log2n) + BGV_LEVEL_BITS
  if (first > PRIME_BITS_MAX || depth + 2 > PRIME_COUNT_MAX) return { fits: false, why: 'prime', n }
  const data = [first, ...Array.from({ length: depth }, () => level)]
  if (level > PRIME_BITS_MAX && depth > 0) return { fits: false, why: 'prime', n }
  const special = Math.max(...data)
  const chain = [...data, special]
  const total = chain.reduce((a, b) => a + b, 0)
  if (total > max) return { fits: false, why: 'budget', n, total, max }
  if (coeffPrimesProblem(n, chain, { batchingBits: t })) return { fits: false, why: 'prime', n }
  return {
    fits: true,
    suggestion: {
      ok: true,
      params: {
        scheme: 'bgv',
        polyModulusDegree: n,
        coeffModulus: chain,
        plainModulus: { batchingBits: t },
        security: needs.security,
      },
      reasons: [
        ringReason(needs, n, max, total, t),
        `BGV, as asked, for whole numbers; a ${t}-bit batching plain modulus holds values in ±2^${t - 1}.`,
        `${depth} prime${depth === 1 ? '' : 's'} of ${level} bits, one per multiplication: relinearize and mod-switch after each, and the noise drops with the prime.`,
        `A first prime of ${first} bits decrypts the last level; a special prime of ${special} bits lets you make relinearization and Galois keys.`,
      ],
      totalBits: total,
      maxBits: max,
    },
  }
}
