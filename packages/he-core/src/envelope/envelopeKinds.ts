/**
 * Every kind of object a sealbox envelope can carry. The wire code of a kind is its
 * index in this list plus one (0 is never a valid kind), so new kinds are appended.
 */
export const ENVELOPE_KINDS = [
  'params',
  'secretKey',
  'publicKey',
  'relinKeys',
  'galoisKeys',
  'plaintext',
  'ciphertext',
  'bundle',
] as const

export type EnvelopeKind = (typeof ENVELOPE_KINDS)[number]

/** Kinds whose payload is one serialized SEAL object (everything but `bundle`). */
export type SealObjectKind = Exclude<EnvelopeKind, 'bundle'>

/**
 * Kinds that SEAL can save in seeded form (`*Serializable`: the random half of each
 * polynomial is replaced by its PRNG seed, so the bytes are about half the size).
 */
export const SEEDABLE_KINDS: ReadonlySet<EnvelopeKind> = new Set(['publicKey', 'relinKeys', 'galoisKeys', 'ciphertext'])

/**
 * Kinds that never belong to a secret key: their envelopes carry no key-set id, and
 * a caller's expected key set does not apply to them.
 */
export const KEYLESS_KINDS: ReadonlySet<EnvelopeKind> = new Set(['params', 'plaintext'])

/**
 * How a payload is encoded. Codes 0–2 are SEAL's serialization compression modes (the
 * wire code equals SEAL's own `compr_mode_type` byte); code 3, `packed`, is sealbox's
 * bit-packed ciphertext (packedCiphertext.ts) or Galois keys (packedGaloisKeys.ts),
 * which are not SEAL saves at all.
 */
export const ENVELOPE_COMPRESSIONS = ['none', 'zlib', 'zstd', 'packed'] as const

export type EnvelopeCompression = (typeof ENVELOPE_COMPRESSIONS)[number]

/** Kinds whose payload may be packed: ciphertexts (packedCiphertext.ts) and Galois keys (packedGaloisKeys.ts). */
export const PACKABLE_KINDS: ReadonlySet<EnvelopeKind> = new Set(['ciphertext', 'galoisKeys'])

/** The compressions SEAL itself writes and reads (everything but `packed`). */
export type SealCompression = Exclude<EnvelopeCompression, 'packed'>

export function kindCode(kind: EnvelopeKind): number {
  return ENVELOPE_KINDS.indexOf(kind) + 1
}

/** The kind for a wire code, or undefined for an unknown code. */
export function kindFromCode(code: number): EnvelopeKind | undefined {
  return ENVELOPE_KINDS[code - 1]
}

export function isEnvelopeKind(value: unknown): value is EnvelopeKind {
  return typeof value === 'string' && (ENVELOPE_KINDS as readonly string[]).includes(value)
}

export function compressionCode(compression: EnvelopeCompression): number {
  return ENVELOPE_COMPRESSIONS.indexOf(compression)
}

/** The compression for a wire code, or undefined for an unknown code. */
export function compressionFromCode(code: number): EnvelopeCompression | undefined {
  return ENVELOPE_COMPRESSIONS[code]
}

export function isEnvelopeCompression(value: unknown): value is EnvelopeCompression {
  return typeof value === 'string' && (ENVELOPE_COMPRESSIONS as readonly string[]).includes(value)
}
