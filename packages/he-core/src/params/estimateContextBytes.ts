import type { ResolvedParams } from './ParamsSpec.ts'

/** WASM bytes per (prime, level) pair per coefficient, measured: see `estimateContextBytes`. */
const BYTES_PER_PRIME_LEVEL_COEFFICIENT = 96
const FIXED_BYTES = 2 ** 20

/**
 * Estimated WASM heap a built context takes (SEALContext with its whole modulus chain,
 * evaluator, encoder): SEAL keeps NTT tables and base converters per prime at every
 * level, so it grows with n × Σ(primes per level). Measured on node-seal 7 as heap
 * growth per context: BFV n=8192 (5 primes) 10.7 MB, CKKS n=16384 (9 primes) 53 MB —
 * 11 and 9.4 × 8 bytes per prime-level coefficient; 12 × 8 keeps the estimate above both.
 */
export function estimateContextBytes(params: Pick<ResolvedParams, 'polyModulusDegree' | 'coeffModulusBits'>): number {
  const primes = params.coeffModulusBits.length
  // The key level holds every prime, each data level one fewer, down to one.
  const primeLevels = (primes * (primes + 1)) / 2
  return FIXED_BYTES + BYTES_PER_PRIME_LEVEL_COEFFICIENT * params.polyModulusDegree * primeLevels
}
