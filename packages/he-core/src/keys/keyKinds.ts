import type { EnvelopeKind } from '../envelope/envelopeKinds.ts'

/**
 * The keys a `KeySet` holds, in the order a person meets them: the secret key, the public
 * key, and the two evaluation keys (`EVALUATION_KEY_KINDS`). Each is also the envelope kind
 * its exported form carries.
 */
export const KEY_KINDS = [
  'secretKey',
  'publicKey',
  'relinKeys',
  'galoisKeys',
] as const satisfies readonly EnvelopeKind[]
/** One of `KEY_KINDS`. */
export type KeyKind = (typeof KEY_KINDS)[number]
