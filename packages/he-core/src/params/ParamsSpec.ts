import { z } from 'zod'

/** The three SEAL schemes sealbox exposes. */
export const SCHEMES = ['bfv', 'bgv', 'ckks'] as const
export type SchemeName = (typeof SCHEMES)[number]

/** SEAL's security levels (HomomorphicEncryption.org standard); `none` only on explicit request. */
export const SECURITY_LEVELS = ['tc128', 'tc192', 'tc256', 'none'] as const
export type SecurityLevelName = (typeof SECURITY_LEVELS)[number]

/** Poly modulus degrees SEAL supports with its default tables. */
export const POLY_MODULUS_DEGREES = [1024, 2048, 4096, 8192, 16384, 32768] as const

/** SEAL's bounds on one prime (SEAL_USER_MOD_BIT_COUNT_MIN / _MAX) and on the number of primes. */
export const PRIME_BITS_MIN = 2
export const PRIME_BITS_MAX = 60
export const PRIME_COUNT_MAX = 64
/** CKKS scales sealbox accepts: 2^1 … 2^60, whole bits (a fractional scale is a new context per request). */
export const SCALE_BITS_MAX = 60

const primeBits = z
  .number()
  .int('prime bit sizes are whole numbers')
  .refine((bits) => bits >= PRIME_BITS_MIN && bits <= PRIME_BITS_MAX, {
    error: (issue) =>
      `${String(issue.input)}-bit prime is out of range; SEAL allows ${PRIME_BITS_MIN}…${PRIME_BITS_MAX} bits`,
  })

/** Plain modulus for BFV/BGV: a batching prime of so many bits, or an explicit prime ≡ 1 (mod 2n). */
export const PlainModulusSpec = z.union([
  z.object({ batchingBits: primeBits }).strict(),
  z
    .object({
      // Below 2^53 (exact in JSON and JavaScript), so below SEAL's 2^60 too.
      value: z
        .number()
        .max(Number.MAX_SAFE_INTEGER, `the plain modulus must be below 2^53 (${Number.MAX_SAFE_INTEGER + 1})`)
        .int('the plain modulus is a whole number')
        .min(2, 'the plain modulus is at least 2'),
    })
    .strict(),
])
export type PlainModulusSpec = z.infer<typeof PlainModulusSpec>

/**
 * Encryption parameters as a user states them. `parseParams` validates them against
 * SEAL's rules before SEAL sees them, so a bad spec gets a reason instead of SEAL's
 * bare `parametersSet() === false`.
 */
export const ParamsSpec = z
  .object({
    scheme: z.enum(SCHEMES),
    polyModulusDegree: z
      .number()
      .int()
      .refine((n) => (POLY_MODULUS_DEGREES as readonly number[]).includes(n), {
        error: (issue) => `${String(issue.input)} is not supported; use one of ${POLY_MODULUS_DEGREES.join(', ')}`,
      }),
    /** `'default'`: SEAL's BFVDefault chain (BFV/BGV) or a CKKS preset; else prime bit sizes, special prime last. */
    coeffModulus: z
      .union([
        z.literal('default'),
        z
          .array(primeBits)
          .min(1, 'give at least one prime bit size')
          .max(PRIME_COUNT_MAX, `SEAL allows at most ${PRIME_COUNT_MAX} primes`),
      ])
      .default('default'),
    /** BFV/BGV only; defaults to a 20-bit batching prime. */
    plainModulus: PlainModulusSpec.optional(),
    /** CKKS only: the encoding scale is 2^scaleBits (whole bits, 1…60); defaults to the preset's. */
    scaleBits: z
      .number()
      .int('scaleBits is a whole number of bits (the scale is 2^scaleBits)')
      .min(1, 'scaleBits is at least 1')
      .max(SCALE_BITS_MAX, `scaleBits is at most ${SCALE_BITS_MAX}`)
      .optional(),
    security: z.enum(SECURITY_LEVELS).default('tc128'),
  })
  .strict()

/** What callers write (defaults optional). */
export type ParamsInput = z.input<typeof ParamsSpec>
/** A parsed spec (defaults applied, not yet resolved against SEAL's tables). */
export type ParamsSpec = z.output<typeof ParamsSpec>

/**
 * A spec with every choice made: the coefficient modulus as bit sizes, the plain
 * modulus as a number (or batching bits until SEAL picks the prime), the CKKS scale.
 */
export const ResolvedParamsSchema = z
  .object({
    scheme: z.enum(SCHEMES),
    polyModulusDegree: z.number().int(),
    coeffModulusBits: z.array(z.number().int()),
    plainModulus: PlainModulusSpec.optional(),
    scaleBits: z.number().int().optional(),
    security: z.enum(SECURITY_LEVELS),
  })
  .strict()
export type ResolvedParams = z.infer<typeof ResolvedParamsSchema>
