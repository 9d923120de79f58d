import { z } from 'zod'

/** The three SEAL schemes sealbox exposes. */
export const SCHEMES = ['bfv', 'bgv', 'ckks'] as const
export type SchemeName = (typeof SCHEMES)[number]

/** SEAL's security levels (HomomorphicEncryption.org standard); `none` only on explicit request. */
export const SECURITY_LEVELS = ['tc128', 'tc192', 'tc256', 'none'] as const
export type SecurityLevelName = (typeof SECURITY_LEVELS)[number]

/** Poly modulus degrees SEAL supports with its default tables. */
export const POLY_MODULUS_DEGREES = [1024, 2048, 4096, 8192, 16384, 32768] as const

/** Plain modulus for BFV/BGV: a batching prime of so many bits, or an explicit prime ≡ 1 (mod 2n). */
export const PlainModulusSpec = z.union([
  z.object({ batchingBits: z.number().int() }).strict(),
  z.object({ value: z.number().int() }).strict(),
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
    polyModulusDegree: z.number().int(),
    /** `'default'`: SEAL's BFVDefault chain (BFV/BGV) or a CKKS preset; else prime bit sizes, special prime last. */
    coeffModulus: z.union([z.literal('default'), z.array(z.number().int()).min(1)]).default('default'),
    /** BFV/BGV only; defaults to a 20-bit batching prime. */
    plainModulus: PlainModulusSpec.optional(),
    /** CKKS only: the encoding scale is 2^scaleBits; defaults to the preset's. */
    scaleBits: z.number().positive().optional(),
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
export interface ResolvedParams {
  scheme: SchemeName
  polyModulusDegree: number
  coeffModulusBits: number[]
  plainModulus: PlainModulusSpec | undefined
  scaleBits: number | undefined
  security: SecurityLevelName
}
