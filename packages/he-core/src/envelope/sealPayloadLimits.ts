import { POLY_MODULUS_DEGREES } from '../params/ParamsSpec.ts'
import { SEAL_HEADER_BYTES } from './sealBlobHeader.ts'

/** SEAL's `SEAL_CIPHERTEXT_SIZE_MIN` / `_MAX`: polynomials per ciphertext. */
export const CIPHERTEXT_SIZE_MIN = 2
export const CIPHERTEXT_SIZE_MAX = 16
/** SEAL's `SEAL_COEFF_MOD_COUNT_MAX`: primes in a coefficient modulus. */
export const COEFF_MODULUS_SIZE_MAX = 64

/**
 * What the objects in a SEAL payload may look like. From a context (`payloadLimitsOf`)
 * every shape is exact; without one (keys for parameters this server has not built)
 * only the ranges SEAL itself allows are known, and the nested keys must agree with
 * each other.
 */
export interface SealPayloadLimits {
  /** Allowed poly modulus degrees: a context's one n, or a set. */
  polyModulusDegrees: readonly number[]
  /** Primes at the key level (special prime included): exact for a context, else the most allowed. */
  keyPrimeCount: number
  /** True when `polyModulusDegrees` and `keyPrimeCount` come from a built context. */
  exact: boolean
  /** A cap on a compressed payload's inflated size, below the one computed from the shapes. */
  maxInflatedBytes?: number
  /**
   * Bits of the smallest prime (from a context): a genuine key's coefficients are uniform
   * modulo the primes, so each carries at least this many bits less one, however it is
   * compressed (`minCompressedPayloadBytes`).
   */
  minPrimeBits?: number
  /** Polynomials a ciphertext may have here (SEAL allows up to 16; a fresh one has 2). */
  maxCiphertextSize?: number
  /** The key-level primes (from a context): every key residue must be below its prime. */
  primes?: readonly bigint[]
}

/** The parts of a context the limits come from (an `HeContext` fits). */
export interface PayloadLimitsSource {
  readonly params: { readonly polyModulusDegree: number }
  readonly coeffPrimes: readonly bigint[]
}

/**
 * Exact limits for payloads under a built context; `maxCiphertextSize` narrows the
 * polynomials a ciphertext may have (a program input or a query: 2).
 */
export function payloadLimitsOf(
  ctx: PayloadLimitsSource,
  options: { maxCiphertextSize?: number } = {},
): SealPayloadLimits {
  const bits = ctx.coeffPrimes.map((prime) => prime.toString(2).length)
  return {
    polyModulusDegrees: [ctx.params.polyModulusDegree],
    keyPrimeCount: ctx.coeffPrimes.length,
    exact: true,
    ...(bits.length > 0 ? { minPrimeBits: Math.min(...bits), primes: ctx.coeffPrimes } : {}),
    ...(options.maxCiphertextSize === undefined ? {} : { maxCiphertextSize: options.maxCiphertextSize }),
  }
}

/**
 * Limits for payloads whose parameters are unknown here: any supported n up to
 * `maxPolyModulusDegree`, up to SEAL's 64 primes, inflating to at most `maxInflatedBytes`.
 */
export function structuralPayloadLimits(options: {
  maxPolyModulusDegree: number
  maxInflatedBytes: number
}): SealPayloadLimits {
  return {
    polyModulusDegrees: POLY_MODULUS_DEGREES.filter((n) => n <= options.maxPolyModulusDegree),
    keyPrimeCount: COEFF_MODULUS_SIZE_MAX,
    exact: false,
    maxInflatedBytes: options.maxInflatedBytes,
  }
}

/** Data primes: all but the special prime when key switching is possible. */
export function dataPrimeCountOf(keyPrimeCount: number): number {
  return keyPrimeCount > 1 ? keyPrimeCount - 1 : 1
}

const U64 = 8
/** parms_id (4 × u64), is_ntt_form (1), size, n, coeff_modulus_size, scale, correction factor. */
export const CIPHERTEXT_FIELDS_BYTES = 32 + 1 + 5 * U64
/** parms_id, coeff_count, scale. */
export const PLAINTEXT_FIELDS_BYTES = 32 + 2 * U64
/** A saved `UniformRandomGeneratorInfo`: header, PRNG type byte, 8 × u64 seed. */
export const PRNG_INFO_BYTES = SEAL_HEADER_BYTES + 1 + 8 * U64
/** A saved DynArray without its data: header and the u64 element count. */
export const DYN_ARRAY_BYTES = SEAL_HEADER_BYTES + U64

/** Bytes of a saved ciphertext of `size` polynomials over `k` primes at degree `n`. */
export function ciphertextBytes(size: number, n: number, k: number, seeded = false): number {
  const data = seeded ? n * k * U64 + PRNG_INFO_BYTES : size * n * k * U64
  return SEAL_HEADER_BYTES + CIPHERTEXT_FIELDS_BYTES + DYN_ARRAY_BYTES + data
}

/**
 * The most bytes an uncompressed payload of `kind` can take under `limits` (the bound
 * a compressed payload is inflated to). `galoisElementCount` is the envelope's claim
 * (distinct elements); `seeded` keys hold one polynomial per key instead of two.
 */
export function maxPayloadBytes(
  kind: string,
  limits: SealPayloadLimits,
  galoisElementCount?: number,
  seeded = false,
): number {
  const n = Math.max(...limits.polyModulusDegrees)
  const k = limits.keyPrimeCount
  const keyList = U64 + dataPrimeCountOf(k) * ciphertextBytes(2, n, k, seeded)
  const kswitchHead = SEAL_HEADER_BYTES + 32 + U64
  let bytes: number
  switch (kind) {
    case 'ciphertext':
      bytes = ciphertextBytes(limits.maxCiphertextSize ?? CIPHERTEXT_SIZE_MAX, n, k)
      break
    case 'publicKey':
      bytes = ciphertextBytes(2, n, k)
      break
    case 'plaintext':
    case 'secretKey':
      bytes = SEAL_HEADER_BYTES + PLAINTEXT_FIELDS_BYTES + DYN_ARRAY_BYTES + n * k * U64
      break
    case 'relinKeys':
      bytes = kswitchHead + keyList
      break
    case 'galoisKeys': {
      const elements = Math.min(galoisElementCount ?? n, n)
      bytes = kswitchHead + n * U64 + elements * keyList
      break
    }
    default:
      // Parameters: scheme, n, the primes and the plain modulus, each a saved Modulus.
      bytes = SEAL_HEADER_BYTES + 1 + 2 * U64 + (COEFF_MODULUS_SIZE_MAX + 1) * (SEAL_HEADER_BYTES + U64)
  }
  return Math.min(bytes, limits.maxInflatedBytes ?? Number.POSITIVE_INFINITY)
}

/**
 * Fewest compressed bytes a genuine payload of key `kind` can take under exact `limits`,
 * or 0 where that is not known. Key coefficients are uniform modulo primes of at least
 * `minPrimeBits` bits, so no compressor stores one in fewer than `minPrimeBits − 1` bits;
 * counted for seeded keys (one random polynomial each) and halved again for headroom,
 * this is far below any genuine upload (≈ 45 % of the full form with zstd) and far above
 * a forged one whose keys are zero. Checked before inflating anything: an upload too
 * small to hold the keys its envelope lists is not those keys.
 */
export function minCompressedPayloadBytes(
  kind: string,
  limits: SealPayloadLimits,
  galoisElementCount?: number,
): number {
  if (!limits.exact || limits.minPrimeBits === undefined) return 0
  const n = Math.max(...limits.polyModulusDegrees)
  const k = limits.keyPrimeCount
  const keysPerList = dataPrimeCountOf(k)
  let coefficients: number
  switch (kind) {
    case 'publicKey':
      coefficients = n * k
      break
    case 'relinKeys':
      coefficients = keysPerList * n * k
      break
    case 'galoisKeys':
      coefficients = (galoisElementCount ?? 0) * keysPerList * n * k
      break
    default:
      return 0
  }
  return Math.floor((coefficients * (limits.minPrimeBits - 1)) / 8 / 2)
}
