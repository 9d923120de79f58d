import { HeError } from '../errors/HeError.ts'
import { assertEnvelopeId } from './envelopeIds.ts'
import { type EnvelopeKind, isEnvelopeKind, KEYLESS_KINDS } from './envelopeKinds.ts'
import type { EnvelopeIdentity } from './readEnvelopeHeader.ts'

/** What the caller expects of an envelope; every field given is checked before SEAL sees the bytes. */
export interface EnvelopeExpect<K extends EnvelopeKind = EnvelopeKind> {
  /** The kind, or the set of kinds, accepted. */
  kind?: K | readonly K[]
  /** The params fingerprint the object must have been made under (`HeContext.fingerprint`). */
  fingerprint?: string
  /**
   * The key set the object must belong to. Applies to keys and ciphertexts; params
   * and plaintexts belong to no key set and pass. An object without a key-set id fails.
   */
  keySetId?: string
  /**
   * Refuse secret keys with SECRET_KEY_REFUSED (checked before the kind), whatever
   * `kind` says. Every server-side decode sets it: a secret key never leaves its owner.
   */
  refuseSecretKey?: boolean
}

function listKinds(kinds: readonly EnvelopeKind[]): string {
  return kinds.length === 1 ? String(kinds[0]) : `one of ${kinds.join(', ')}`
}

/** Throws INVALID_INPUT for a malformed expectation (a caller bug, not bad input). */
export function validateEnvelopeExpect(expect: EnvelopeExpect): readonly EnvelopeKind[] | undefined {
  if (expect.fingerprint !== undefined) assertEnvelopeId(expect.fingerprint, 'expected fingerprint')
  if (expect.keySetId !== undefined) assertEnvelopeId(expect.keySetId, 'expected keySetId')
  if (expect.kind === undefined) return undefined
  const kinds: readonly EnvelopeKind[] = typeof expect.kind === 'string' ? [expect.kind] : expect.kind
  if (kinds.length === 0 || !kinds.every(isEnvelopeKind)) {
    throw new HeError(
      'INVALID_INPUT',
      `expected kind must be one or more of the envelope kinds, got ${JSON.stringify(expect.kind)}`,
    )
  }
  return kinds
}

/**
 * Params and plaintexts belong to no key set. A bundle without a key-set id names no
 * key set of its own; `decodeBundle` applies the expectation to each item instead.
 */
function belongsToKeySet(identity: EnvelopeIdentity): boolean {
  if (KEYLESS_KINDS.has(identity.kind)) return false
  return identity.kind !== 'bundle' || identity.keySetId !== undefined
}

/**
 * Checks an envelope's identity against `expect`, in this order: secret-key refusal,
 * kind, params fingerprint, key set. Messages say what was expected and what was found.
 */
export function checkEnvelopeExpect(identity: EnvelopeIdentity, expect: EnvelopeExpect, what = 'envelope'): void {
  const kinds = validateEnvelopeExpect(expect)
  if (expect.refuseSecretKey && identity.kind === 'secretKey') {
    throw new HeError('SECRET_KEY_REFUSED', `${what} is a secret key, and secret keys are refused here`, {
      details: { found: 'secretKey' },
    })
  }
  if (kinds !== undefined && !kinds.includes(identity.kind)) {
    throw new HeError('ENVELOPE_KIND_MISMATCH', `${what}: expected ${listKinds(kinds)}, got ${identity.kind}`, {
      details: { expected: kinds, found: identity.kind },
    })
  }
  if (expect.fingerprint !== undefined && expect.fingerprint !== identity.fingerprint) {
    throw new HeError(
      'PARAMS_MISMATCH',
      `${what}: expected params fingerprint ${expect.fingerprint}, got ${identity.fingerprint} (made under other encryption parameters)`,
      { details: { expected: expect.fingerprint, found: identity.fingerprint } },
    )
  }
  if (expect.keySetId !== undefined && belongsToKeySet(identity) && expect.keySetId !== identity.keySetId) {
    const found = identity.keySetId ?? 'none'
    throw new HeError(
      'KEY_SET_MISMATCH',
      `${what}: expected key set ${expect.keySetId}, got ${found} (${identity.keySetId === undefined ? 'the object names no key set' : 'it belongs to another secret key'})`,
      { details: { expected: expect.keySetId, found: identity.keySetId ?? null } },
    )
  }
}
