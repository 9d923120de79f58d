import type { SecurityLevelName } from './ParamsSpec.ts'

type Table = Record<number, number[]>

/** SEAL's `CoeffModulus.BFVDefault(n, level)` bit sizes (SEAL 4.1, see NODE-SEAL-FACTS.md §7). */
export const BFV_DEFAULT_BITS: Record<Exclude<SecurityLevelName, 'none'>, Table> = {
  tc128: {
    1024: [27],
    2048: [54],
    4096: [36, 36, 37],
    8192: [43, 43, 44, 44, 44],
    16384: [48, 48, 48, 49, 49, 49, 49, 49, 49],
    32768: [55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 55, 56],
  },
  tc192: {
    1024: [19],
    2048: [37],
    4096: [25, 25, 25],
    8192: [38, 38, 38, 38],
    16384: [50, 50, 50, 50, 50, 50],
    32768: [54, 54, 54, 54, 54, 55, 55, 55, 55, 55, 55],
  },
  tc256: {
    1024: [14],
    2048: [29],
    4096: [58],
    8192: [39, 39, 40],
    16384: [47, 47, 47, 48, 48],
    32768: [52, 53, 53, 53, 53, 53, 53, 53, 53],
  },
}

/** SEAL's `CoeffModulus.MaxBitCount(n, level)`: the largest total coefficient modulus that is still secure. */
export const MAX_COEFF_BITS: Record<Exclude<SecurityLevelName, 'none'>, Record<number, number>> = {
  tc128: { 1024: 27, 2048: 54, 4096: 109, 8192: 218, 16384: 438, 32768: 881 },
  tc192: { 1024: 19, 2048: 37, 4096: 75, 8192: 152, 16384: 305, 32768: 611 },
  tc256: { 1024: 14, 2048: 29, 4096: 58, 8192: 118, 16384: 237, 32768: 476 },
}

/**
 * CKKS presets at 128-bit security: data primes as wide as the scale so a rescale
 * returns to the same scale, and outer primes wider to hold the integer part.
 */
export const CKKS_PRESETS: Record<number, { bits: number[]; scaleBits: number }> = {
  4096: { bits: [40, 20, 40], scaleBits: 20 },
  8192: { bits: [60, 40, 40, 60], scaleBits: 40 },
  16384: { bits: [60, 40, 40, 40, 40, 40, 40, 40, 60], scaleBits: 40 },
  32768: { bits: [60, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 60], scaleBits: 50 },
}
