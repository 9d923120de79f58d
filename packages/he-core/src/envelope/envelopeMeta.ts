import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import type { EnvelopeKind } from './envelopeKinds.ts'

/*
 * The small JSON block every envelope carries, one zod schema per kind. Fields are
 * informational facts the receiver can use before loading anything into SEAL (which
 * rotations a Galois key set supports, the level of a ciphertext). Unknown keys are
 * dropped on read so a newer writer can add optional fields without a format bump.
 */

const label = z.string().max(200)
const count = z.number().int().nonnegative()

export const paramsMetaSchema = z.object({
  label: label.optional(),
  scheme: z.enum(['bfv', 'bgv', 'ckks']).optional(),
  polyModulusDegree: z.number().int().min(1024).max(32768).optional(),
  /**
   * The security level the context is built with. SEAL's serialized parameters do not
   * hold it, but the params fingerprint does, so a receiver needs it to rebuild the context.
   */
  security: z.enum(['tc128', 'tc192', 'tc256', 'none']).optional(),
  /** CKKS: the encoding scale is 2^scaleBits (not part of SEAL's parameters either). */
  scaleBits: z.number().positive().optional(),
})

export const secretKeyMetaSchema = z.object({ label: label.optional() })
export const publicKeyMetaSchema = z.object({ label: label.optional() })
export const relinKeysMetaSchema = z.object({ label: label.optional() })

export const galoisKeysMetaSchema = z.object({
  label: label.optional(),
  /** The rotation steps the keys were made for, when made from steps. */
  steps: z.array(z.number().int()).max(65536).optional(),
  /** The Galois elements present (odd, below 2n): what a rotation needs is checked against these. */
  elements: z
    .array(
      z
        .number()
        .int()
        .positive()
        .max(2 * 32768)
        .refine((n) => n % 2 === 1, 'Galois elements are odd'),
    )
    .max(65536),
})

export const plaintextMetaSchema = z.object({
  label: label.optional(),
  level: count.optional(),
  scale: z.number().positive().optional(),
  nttForm: z.boolean().optional(),
})

export const ciphertextMetaSchema = z.object({
  label: label.optional(),
  level: count.optional(),
  size: z.number().int().min(2).optional(),
  scale: z.number().positive().optional(),
})

export const bundleMetaSchema = z
  .object({
    label: label.optional(),
    /** Number of envelopes in the bundle; checked against the cap before any is parsed. */
    count: z.number().int().positive(),
    /** One name per envelope, in order (e.g. sandbox variable names). */
    labels: z.array(label).optional(),
  })
  .refine((meta) => meta.labels === undefined || meta.labels.length === meta.count, {
    message: 'labels must have one entry per envelope (count)',
    path: ['labels'],
  })

/** The meta schema of each kind. */
export const ENVELOPE_META_SCHEMAS = {
  params: paramsMetaSchema,
  secretKey: secretKeyMetaSchema,
  publicKey: publicKeyMetaSchema,
  relinKeys: relinKeysMetaSchema,
  galoisKeys: galoisKeysMetaSchema,
  plaintext: plaintextMetaSchema,
  ciphertext: ciphertextMetaSchema,
  bundle: bundleMetaSchema,
} as const satisfies Record<EnvelopeKind, z.ZodType>

/** The meta object of each kind, as decoded. */
export type EnvelopeMetaByKind = { [K in EnvelopeKind]: z.output<(typeof ENVELOPE_META_SCHEMAS)[K]> }

/** The meta object of each kind, as accepted by the encoder. */
export type EnvelopeMetaInput<K extends EnvelopeKind> = z.input<(typeof ENVELOPE_META_SCHEMAS)[K]>

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]
  if (!issue) return 'invalid'
  const path = issue.path.length > 0 ? issue.path.join('.') : '(root)'
  return `${path}: ${issue.message}`
}

/**
 * Validates `meta` against the schema of `kind`. `code` is INVALID_INPUT when we are
 * encoding (the caller's mistake) and INVALID_ENVELOPE when decoding (the sender's).
 */
export function parseEnvelopeMeta<K extends EnvelopeKind>(
  kind: K,
  meta: unknown,
  code: HeErrorCode,
): EnvelopeMetaByKind[K] {
  const result = ENVELOPE_META_SCHEMAS[kind].safeParse(meta)
  if (!result.success) {
    throw new HeError(code, `invalid ${kind} envelope meta: ${describeIssue(result.error)}`, {
      cause: result.error,
      details: { kind },
    })
  }
  return result.data as EnvelopeMetaByKind[K]
}
