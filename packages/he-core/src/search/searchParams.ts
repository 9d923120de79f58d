import { isPrime } from '@sealbox/he-ring'
import { HeError } from '../errors/HeError.ts'
import type { ParamsInput, ResolvedParams } from '../params/ParamsSpec.ts'

/**
 * The parameter sets private search is tuned and tested for. All use t = 65537
 * (a 17-bit batching prime for every n ≤ 32768) unless cluster-private search chooses a
 * larger one (`clusterPlainModulus`), and two data primes, so the scores are computed at
 * two primes and the response drops to one by a mod switch.
 */
export const SEARCH_PARAMS_PROFILES = {
  /** n=4096, coeff modulus [27, 28, 28]: the smallest and fastest (one special prime, two data primes). */
  n4096: { polyModulusDegree: 4096, coeffModulus: [27, 28, 28] },
  /**
   * n=4096, coeff modulus [30, 30, 31]: as fast (every prime below 2^31, so the key-switching
   * kernel runs), about 10 % more bytes, and 6 bits of noise budget left in a response at any
   * D, where `n4096` leaves 3 up to D = 256 and only 1–2 past it.
   */
  'n4096-wide': { polyModulusDegree: 4096, coeffModulus: [30, 30, 31] },
  /**
   * n=4096, coeff modulus [31, 31, 31]: the largest primes the key-switching kernel takes. The
   * default of cluster-private search, whose t is chosen from its layout
   * (`clusterPlainModulus`): each prime's extra bit is room for a larger t, hence a finer scale.
   */
  'n4096-cluster': { polyModulusDegree: 4096, coeffModulus: [31, 31, 31] },
  /** n=4096 with SEAL's default chain [36, 36, 37]: more noise budget, same speed class. */
  'n4096-seal-default': { polyModulusDegree: 4096, coeffModulus: 'default' },
  /** n=8192, coeff modulus [43, 43, 44]: twice the slots per ciphertext, twice the cost per operation. */
  n8192: { polyModulusDegree: 8192, coeffModulus: [43, 43, 44] },
} as const satisfies Record<string, Pick<ParamsInput, 'polyModulusDegree' | 'coeffModulus'>>

export type SearchParamsProfileName = keyof typeof SEARCH_PARAMS_PROFILES

/**
 * Past this padded dimension D' the default profile is `n4096-wide`: `n4096` responses keep
 * 1–2 bits of noise budget there (measured at D = 384 … 2048), and a query a little noisier
 * than the rest would be refused by the client as NOISE_BUDGET_EXHAUSTED.
 */
export const WIDE_PROFILE_FROM_PADDED_DIMENSION = 512

/**
 * The profile exact search falls back to, without `params`, when the plan at the default
 * profile has a response noise bound above q/(4t) (`leavesResponseBudget`). Below D' = 512 that
 * happens with many rows: the plan's baby step g grows with V, and every chained rotation adds
 * key-switching noise (V = 80,000, D = 256 at `n4096`: g = 64, bound 869 against a room of 512;
 * its responses kept 1–2 bits and, rarely, none).
 */
export const NOISE_FALLBACK_PROFILE: SearchParamsProfileName = 'n4096-wide'

/**
 * The profile a search gets when its params are not given, by its padded dimension D'
 * (`resolveSearchConfig` then moves to `NOISE_FALLBACK_PROFILE` if the plan's noise needs it).
 */
export function defaultSearchProfile(paddedDimension: number): SearchParamsProfileName {
  return paddedDimension >= WIDE_PROFILE_FROM_PADDED_DIMENSION ? 'n4096-wide' : 'n4096'
}

/** The profile of cluster-private BGV search when its params are not given (t chosen from the layout). */
export const CLUSTER_SEARCH_PROFILE: SearchParamsProfileName = 'n4096-cluster'

/** The plain modulus every search profile uses (cluster-private search may choose a larger one). */
export const SEARCH_PLAIN_MODULUS = 65537

/** The two schemes with exact integer batching. */
export const SEARCH_SCHEMES = ['bgv', 'bfv'] as const
export type SearchScheme = (typeof SEARCH_SCHEMES)[number]

export function isSearchProfileName(value: unknown): value is SearchParamsProfileName {
  return typeof value === 'string' && Object.hasOwn(SEARCH_PARAMS_PROFILES, value)
}

/** The full parameter spec of a profile under `scheme`, with t = 65537 unless `plainModulus` says otherwise. */
export function searchProfileParams(
  profile: SearchParamsProfileName,
  scheme: SearchScheme,
  plainModulus: number = SEARCH_PLAIN_MODULUS,
): ParamsInput {
  const { polyModulusDegree, coeffModulus } = SEARCH_PARAMS_PROFILES[profile]
  return {
    scheme,
    polyModulusDegree,
    coeffModulus: coeffModulus === 'default' ? 'default' : [...coeffModulus],
    plainModulus: { value: plainModulus },
    security: 'tc128',
  }
}

/**
 * The prime SEAL's `PlainModulus.Batching(n, bits)` picks: the largest `bits`-bit
 * prime ≡ 1 (mod 2n). Needed before SEAL runs because the scale factor depends on t.
 */
export function batchingPrime(polyModulusDegree: number, bits: number): number {
  if (bits > 31) {
    throw new HeError(
      'INVALID_PARAMS',
      `plainModulus.batchingBits: private search supports plain moduli up to 31 bits (got ${bits}); give the value explicitly`,
      { details: { field: 'plainModulus' } },
    )
  }
  const step = 2 * polyModulusDegree
  let candidate = Math.floor((2 ** bits - 1 - 1) / step) * step + 1
  while (candidate >= 2 ** (bits - 1)) {
    if (isPrime(candidate)) return candidate
    candidate -= step
  }
  throw new HeError('INVALID_PARAMS', `no ${bits}-bit prime ≡ 1 (mod ${step}) exists for batching`, {
    details: { field: 'plainModulus' },
  })
}

/** The plain modulus t of resolved BFV/BGV params, as a number. */
export function plainModulusOf(params: ResolvedParams): number {
  const spec = params.plainModulus
  if (spec === undefined) {
    throw new HeError(
      'INVALID_PARAMS',
      `private search needs BFV or BGV batching; ${params.scheme} has no plain modulus`,
    )
  }
  return 'value' in spec ? spec.value : batchingPrime(params.polyModulusDegree, spec.batchingBits)
}
