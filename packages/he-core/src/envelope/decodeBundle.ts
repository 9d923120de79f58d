import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { decodeEnvelopeBytes, type Envelope } from './decodeEnvelope.ts'
import { type EnvelopeExpect, validateEnvelopeExpect } from './envelopeExpect.ts'
import type { EnvelopeKind, SealObjectKind } from './envelopeKinds.ts'
import { DEFAULT_MAX_BUNDLE_COUNT } from './envelopeLayout.ts'
import { splitEnvelopes } from './splitEnvelopes.ts'

/** What the caller expects of a bundle and of every item in it. */
export interface BundleExpect<K extends SealObjectKind = SealObjectKind> {
  /** The kind, or set of kinds, every item must have. */
  itemKind?: K | readonly K[]
  /** The params fingerprint of the bundle (and so of every item). */
  fingerprint?: string
  /** The key set every key and ciphertext item must belong to. */
  keySetId?: string
  /** Refuse a bundle that holds a secret key (SECRET_KEY_REFUSED). */
  refuseSecretKey?: boolean
  /** Cap on the number of items (LIMIT_EXCEEDED above it); default `DEFAULT_MAX_BUNDLE_COUNT`. */
  maxCount?: number
  /**
   * Verify each item's own CRC-32 too (default true). The bundle's CRC already covers
   * every byte of every item; a reader that never keeps or forwards an item on its own
   * (a search query) can skip the second pass over the same bytes.
   */
  itemChecksums?: boolean
}

/** A verified bundle: the outer envelope plus its items (views into the input, no copies). */
export type Bundle<K extends SealObjectKind = SealObjectKind> = Envelope<'bundle'> & { items: Envelope<K>[] }

/**
 * Decodes a bundle and verifies every item as `decodeEnvelope` does, before any SEAL
 * call. Beyond the single-envelope checks: the declared count against `maxCount`
 * (LIMIT_EXCEEDED, checked before any item is parsed), each item's fingerprint equals
 * the bundle's (PARAMS_MISMATCH), each item's key set is the bundle's (KEY_SET_MISMATCH),
 * no nested bundle, and the items fill the payload exactly and match the count
 * (INVALID_ENVELOPE).
 */
export function decodeBundle<K extends SealObjectKind = SealObjectKind>(
  bytes: BytesLike,
  expect: BundleExpect<K> = {},
): Bundle<K> {
  const maxCount = expect.maxCount ?? DEFAULT_MAX_BUNDLE_COUNT
  const itemExpect: EnvelopeExpect<K> = {
    ...(expect.itemKind === undefined ? {} : { kind: expect.itemKind }),
    ...(expect.keySetId === undefined ? {} : { keySetId: expect.keySetId }),
    ...(expect.refuseSecretKey === undefined ? {} : { refuseSecretKey: expect.refuseSecretKey }),
  }
  validateEnvelopeExpect(itemExpect)
  const bundle = decodeEnvelopeBytes(
    asPlainUint8Array(bytes),
    {
      kind: 'bundle',
      ...(expect.fingerprint === undefined ? {} : { fingerprint: expect.fingerprint }),
      ...(expect.keySetId === undefined ? {} : { keySetId: expect.keySetId }),
    },
    'bundle',
  )
  const { count } = bundle.meta
  if (count > maxCount) {
    throw new HeError('LIMIT_EXCEEDED', `bundle holds ${count} envelopes; at most ${maxCount} are accepted here`, {
      details: { limit: maxCount, found: count },
    })
  }
  const parts = splitEnvelopes(bundle.payload, {
    max: count,
    tooMany: () => new HeError('INVALID_ENVELOPE', `bundle declares ${count} envelopes but holds more`),
    what: 'bundle item',
  })
  const items: Envelope<K>[] = []
  for (const [index, part] of parts.entries()) {
    const what = `bundle item ${index}`
    const item = decodeEnvelopeBytes(part, { ...itemExpect, fingerprint: bundle.fingerprint }, what, {
      checksum: expect.itemChecksums ?? true,
    })
    if ((item.kind as EnvelopeKind) === 'bundle')
      throw new HeError('INVALID_ENVELOPE', `${what} is a bundle; bundles do not nest`)
    if (item.keySetId !== undefined && item.keySetId !== bundle.keySetId) {
      throw new HeError(
        'KEY_SET_MISMATCH',
        `${what} belongs to key set ${item.keySetId}, but the bundle to ${bundle.keySetId ?? 'none'}`,
        { details: { expected: bundle.keySetId ?? null, found: item.keySetId } },
      )
    }
    items.push(item)
  }
  if (items.length !== count) {
    throw new HeError('INVALID_ENVELOPE', `bundle declares ${count} envelopes but holds ${items.length}`)
  }
  return { ...bundle, items }
}
