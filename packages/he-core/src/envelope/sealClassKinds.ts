import type { SealObjectKind } from './envelopeKinds.ts'

/**
 * node-seal class names (embind keeps the C++ names, unminified) and the envelope
 * kind each one saves as. SEAL itself cannot tell relin keys from Galois keys on
 * load, so the glue refuses to save or load an object under another kind's name.
 */
const SEAL_CLASS_KINDS: Readonly<Record<string, { kind: SealObjectKind; seeded: boolean }>> = {
  EncryptionParameters: { kind: 'params', seeded: false },
  SecretKey: { kind: 'secretKey', seeded: false },
  PublicKey: { kind: 'publicKey', seeded: false },
  SerializablePublicKey: { kind: 'publicKey', seeded: true },
  RelinKeys: { kind: 'relinKeys', seeded: false },
  SerializableRelinKeys: { kind: 'relinKeys', seeded: true },
  GaloisKeys: { kind: 'galoisKeys', seeded: false },
  SerializableGaloisKeys: { kind: 'galoisKeys', seeded: true },
  Plaintext: { kind: 'plaintext', seeded: false },
  Ciphertext: { kind: 'ciphertext', seeded: false },
  SerializableCiphertext: { kind: 'ciphertext', seeded: true },
}

/** The kind (and seededness) of a node-seal object by its class, or undefined for an unknown class. */
export function sealClassKind(
  object: object,
): { className: string; kind: SealObjectKind; seeded: boolean } | undefined {
  const className = (object as { constructor?: { name?: unknown } }).constructor?.name
  if (typeof className !== 'string') return undefined
  const entry = Object.hasOwn(SEAL_CLASS_KINDS, className) ? SEAL_CLASS_KINDS[className] : undefined
  return entry === undefined ? undefined : { className, ...entry }
}
