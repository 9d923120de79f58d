import type { SearchConfig } from './SearchConfig.ts'
import { batchingPrime, SEARCH_PLAIN_MODULUS } from './searchParams.ts'
import { searchResponseNoiseBound } from './searchResponseDroppedBits.ts'

/*
 * Cluster-private search ranks one cluster's rows by integer scores x̃·q̃ (x̃ = round(s·x/‖x‖)),
 * whose rounding error, ≈ √(D/6)/s in cosine, must stay below the gaps between a query's 10th
 * and 11th neighbours: inside a cluster every row is a near neighbour, and at t = 65537,
 * D = 384 (s = 171) the integer top 10 found 0.88 of float cosine's on the million bench's data
 * (packages/bench/results/search/scale-recall.md). s grows as √t, so a larger t is a finer scale.
 *
 * Its price is noise: a product by a plaintext of coefficients up to t/2 multiplies the noise
 * (in units of t) by t, and the room q/(4t) shrinks by t, so each bit of t costs two bits of
 * budget. The t chosen is therefore the largest batching prime for which the response noise
 * bound (`searchResponseNoiseBound`, z = 8 standard deviations per coefficient: the bound of
 * the dropped-bits rule, checked against the exact noise by the worst-noise tests) stays below
 * the room q/(4t) with no bit dropped: the rule's own condition, so every block keeps one bit
 * of noise budget at the bound, the rule drops only what leaves that bit, and the client's
 * NOISE_BUDGET_EXHAUSTED check still guards every score. The bound depends on the layout
 * (chunks × W products, g, hoisting), so t is chosen per config, not per profile. Measured at
 * the million bench's layout (benchmark:response-noise), the real budget is 2–3 bits above it.
 */

/** Bits of the batching primes tried for a cluster-private t, largest first (each ≈ 2^bits). */
export const CLUSTER_PLAIN_BITS = [21, 20, 19, 18] as const

/** The noise bound of `config` with t = `plainModulus`, and its room q/(4t), on the config's prime widths. */
export function clusterNoiseAt(config: SearchConfig, plainModulus: number): { noiseBound: number; room: number } {
  // The model has widths, not primes: SEAL's primes of w bits ≡ 1 (mod 2n) sit just under
  // 2^w (within 2^−12 at n = 4096); taken 2^−8 lower, so the real room is never smaller.
  const coeffPrimes = config.params.coeffModulusBits.map((w) => 2n ** BigInt(w) - 2n ** BigInt(w - 8))
  const ctx = {
    coeffPrimes,
    plainModulus: BigInt(plainModulus),
    params: { polyModulusDegree: config.polyModulusDegree, scheme: config.scheme },
  }
  const noiseBound = searchResponseNoiseBound(ctx, config)
  return { noiseBound, room: Number(coeffPrimes[0]) / (4 * plainModulus) }
}

/**
 * The plain modulus for a cluster-private config (resolved at any t: the layout, g and primes
 * are what count): the largest batching prime of `CLUSTER_PLAIN_BITS` whose noise bound + ½
 * stays below the room q/(4t), else 65537. BFV keeps 65537 (the bound models BGV's noise).
 */
export function clusterPlainModulus(config: SearchConfig): number {
  if (config.scheme !== 'bgv') return SEARCH_PLAIN_MODULUS
  for (const bits of CLUSTER_PLAIN_BITS) {
    const t = batchingPrime(config.polyModulusDegree, bits)
    const { noiseBound, room } = clusterNoiseAt(config, t)
    if (noiseBound + 0.5 < room) return t
  }
  return SEARCH_PLAIN_MODULUS
}
