import { BFV_DEFAULT_BITS } from '@sealbox/he-core'
import { SEARCH_PARAMS_PROFILES, SEARCH_PLAIN_MODULUS } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'

/**
 * SEAL's benchmark parameters: `CoeffModulus.BFVDefault(n, tc128)` per n (the same primes
 * for BFV, BGV and CKKS), plain modulus `PlainModulus.Batching(n, 20)` for BFV/BGV, and
 * contexts built with `SecLevelType.none` exactly as sealbench's BMEnv does. These are
 * benchmark parameters, not an example to copy.
 */

/** Bit sizes of BFVDefault(n, tc128) (he-core's table); the harness checks SEAL agrees at run time. */
export const DEFAULT_COEFF_BITS: Readonly<Record<number, readonly number[]>> = BFV_DEFAULT_BITS.tc128

/**
 * The `bgv-search` context: BGV at the private search's default parameters (he-core's
 * `n4096` search profile and plain modulus), where every prime is below 2^31 and he-ring's
 * kernel applies. The only n it exists at.
 */
export const SEARCH_BENCH_PARAMS = {
  n: SEARCH_PARAMS_PROFILES.n4096.polyModulusDegree,
  coeffModulusBits: SEARCH_PARAMS_PROFILES.n4096.coeffModulus,
  plainModulus: SEARCH_PLAIN_MODULUS,
} as const

/** Every n of the published table, ascending. */
export const ALL_NS: readonly number[] = [1024, 2048, 4096, 8192, 16384, 32768]

/** Bits of the plain modulus for BFV/BGV (`PlainModulus.Batching(n, 20)`). */
export const PLAIN_MODULUS_BITS = 20

/** log2(q) as the published table prints it: all primes, special prime included. */
export function logQ(n: number): number {
  const bits = DEFAULT_COEFF_BITS[n]
  if (!bits) throw new BenchError('INTERNAL', `no default coeff modulus for n=${n}`)
  return bits.reduce((sum, b) => sum + b, 0)
}

/** Facts that decide which rows exist at n (sealbench's registration rules). */
export function paramFacts(n: number): { usingKeyswitching: boolean; coeffModulusCount: number } {
  const count = DEFAULT_COEFF_BITS[n]?.length ?? 0
  // With one prime there is no special prime: keys live at the data level, no keyswitching,
  // and the data level has one prime (no chain).
  return { usingKeyswitching: count > 1, coeffModulusCount: count > 1 ? count - 1 : count }
}

/**
 * sealbench's `safe_scale()`: half as many bits as the last data-level prime, minus one,
 * so ciphertext products stay in bounds.
 */
export function ckksSafeScaleBits(n: number): number {
  const bits = DEFAULT_COEFF_BITS[n]
  if (!bits) throw new BenchError('INTERNAL', `no default coeff modulus for n=${n}`)
  const dataLevel = bits.length > 1 ? bits.slice(0, -1) : bits
  const last = dataLevel[dataLevel.length - 1] ?? 0
  return Math.floor(last / 2) - 1
}
