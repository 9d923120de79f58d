import { bgvAttempt } from './bgvAttempt.ts'
import type { ChainAttempt } from './ChainAttempt.ts'
import { coeffPrimesProblem, plainBitsFit } from './modulusProblems.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { PRIME_BITS_MAX, PRIME_COUNT_MAX } from './ParamsSpec.ts'
import { ringReason } from './ringReason.ts'

/** Splits `total` bits into `count` primes, as even as possible (larger first). */
function splitPrimes(total: number, count: number): number[] {
  const base = Math.floor(total / count)
  const extra = total - base * count
  return Array.from({ length: count }, (_, i) => base + (i < extra ? 1 : 0))
}

/**
 * Whole numbers at ring degree `n` under a budget of `max` bits: BGV (`bgvAttempt`) when
 * asked, else BFV — data primes that hold the noise of `depth` multiplications, as few as fit.
 */
export function integerAttempt(needs: ParamsNeeds, n: number, max: number): ChainAttempt {
  if (needs.scheme === 'bgv') return bgvAttempt(needs, n, max)
  const scheme = 'bfv'
  const t = needs.plainBits ?? 0
  const { depth } = needs
  if (!plainBitsFit(n, t)) return { fits: false, why: 'prime', n }
  const log2n = Math.log2(n)
  // Measured on node-seal 7 (repeated square + relinearize): a product costs about t + log2(n)
  // bits of noise budget; a fresh ciphertext t + log2(n) + 2 (parseParams' rule), plus a bit to spare.
  const fresh = t + log2n + 3
  const dataBits = Math.max(fresh + depth * (t + log2n), log2n + 3)
  const minPrime = log2n + 2
  // The fewest primes first (faster); more, smaller primes shrink the special prime, so
  // a chain that does not fit with few may fit with more. Sizes SEAL cannot make (too few
  // primes of a size, or a prime that would be t itself) are skipped.
  // The total is dataBits + ceil(dataBits / count): start at the fewest primes that fit the
  // budget, stop where a prime would be too small for n or SEAL's prime count runs out.
  const fewest = Math.max(Math.ceil(dataBits / PRIME_BITS_MAX), Math.ceil(dataBits / Math.max(1, max - dataBits)))
  const most = Math.min(Math.floor(dataBits / minPrime), PRIME_COUNT_MAX - 1)
  for (let count = fewest; count <= most && dataBits < max; count++) {
    const data = splitPrimes(dataBits, count)
    const special = Math.max(...data)
    const chain = [...data, special]
    const total = dataBits + special
    if (total > max) continue
    if (coeffPrimesProblem(n, chain, { batchingBits: t })) continue
    return {
      fits: true,
      suggestion: {
        ok: true,
        params: {
          scheme,
          polyModulusDegree: n,
          coeffModulus: chain,
          plainModulus: { batchingBits: t },
          security: needs.security,
        },
        reasons: [
          ringReason(needs, n, max, total, t),
          `BFV, because the values are whole numbers; a ${t}-bit batching plain modulus holds values in ±2^${t - 1}.`,
          `${dataBits} bits of data primes (split into ${data.join(' + ')}): a fresh ciphertext uses about ${fresh} bits of noise budget and each of the ${depth} multiplication${depth === 1 ? '' : 's'} about ${t + log2n}.`,
          `A special prime of ${special} bits (as large as the largest data prime) lets you make relinearization and Galois keys.`,
        ],
        totalBits: total,
        maxBits: max,
      },
    }
  }
  // The least any split needs: the most primes, so the smallest special prime.
  const total = dataBits + Math.ceil(dataBits / Math.max(1, most))
  return { fits: false, why: 'budget', n, total, max }
}
