import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { assertEnvelopeId, NO_KEY_SET_ID } from './envelopeIds.ts'
import {
  type EnvelopeCompression,
  type EnvelopeKind,
  isEnvelopeKind,
  KEYLESS_KINDS,
  SEEDABLE_KINDS,
  type SealObjectKind,
} from './envelopeKinds.ts'
import { MAX_META_BYTES } from './envelopeLayout.ts'
import { type EnvelopeMetaInput, parseEnvelopeMeta } from './envelopeMeta.ts'
import { checkPackedLayout, isPackedPayload } from './packedCiphertext.ts'
import { checkPackedGaloisKeysLayout, isPackedGaloisKeysPayload } from './packedGaloisKeys.ts'
import { checkSealBlobHeader } from './sealBlobHeader.ts'
import { writeEnvelope } from './writeEnvelope.ts'

/** `meta` is optional for kinds whose meta fields are all optional (all but galoisKeys). */
type MetaField<K extends EnvelopeKind> =
  Partial<EnvelopeMetaInput<K>> extends EnvelopeMetaInput<K>
    ? { meta?: EnvelopeMetaInput<K> }
    : { meta: EnvelopeMetaInput<K> }

/** What `encodeEnvelope` wraps: one serialized SEAL object and who it belongs to. */
export type EncodeEnvelopeInput<K extends SealObjectKind = SealObjectKind> = {
  [P in K]: {
    kind: P
    /** Params fingerprint (`HeContext.fingerprint`): 32 lowercase hex characters. */
    fingerprint: string
    /** The key set of a key or ciphertext (32 lowercase hex characters); never set for params or plaintexts. */
    keySetId?: string
    /** The payload was saved from a seeded `Serializable*` object (publicKey, relinKeys, galoisKeys, ciphertext). */
    seeded?: boolean
    /**
     * SEAL's `saveToArray` output, untouched: its 16-byte header is checked and gives the
     * compression. Or a packed ciphertext (`packSealCiphertext`) or packed Galois keys
     * (`packSealGaloisKeys`): compression `packed`.
     */
    payload: BytesLike
  } & MetaField<P>
}[K]

const encoder = new TextEncoder()

/** Validates meta for `kind` and returns its UTF-8 JSON. */
export function encodeEnvelopeMeta(kind: EnvelopeKind, meta: unknown): Uint8Array {
  const parsed = parseEnvelopeMeta(kind, meta ?? {}, 'INVALID_INPUT')
  const bytes = encoder.encode(JSON.stringify(parsed))
  if (bytes.length > MAX_META_BYTES) {
    throw new HeError(
      'INVALID_INPUT',
      `${kind} meta is ${bytes.length} bytes of JSON, more than the ${MAX_META_BYTES} allowed`,
    )
  }
  return bytes
}

/** Validates an optional key-set id for `kind`; undefined means "no key set". */
export function checkKeySetIdFor(kind: EnvelopeKind, keySetId: string | undefined): void {
  if (keySetId === undefined) return
  assertEnvelopeId(keySetId, 'keySetId')
  if (keySetId === NO_KEY_SET_ID) {
    throw new HeError('INVALID_INPUT', 'keySetId must not be all zeros (that means "no key set"; leave it out instead)')
  }
  if (KEYLESS_KINDS.has(kind)) throw new HeError('INVALID_INPUT', `a ${kind} belongs to no key set: leave keySetId out`)
}

/**
 * Wraps one serialized SEAL object in a sealbox envelope: header (kind, flags,
 * compression, params fingerprint, key-set id), validated meta, the payload and a
 * CRC-32. Everything is validated first (INVALID_INPUT), including the payload's own
 * SEAL header, so this never writes an envelope that `decodeEnvelope` would reject.
 * Use `encodeBundle` for several objects and `saveSealObject` to save and wrap in one step.
 */
export function encodeEnvelope<K extends SealObjectKind>(input: EncodeEnvelopeInput<K>): Uint8Array {
  const { kind, fingerprint, keySetId } = input as EncodeEnvelopeInput
  if ((kind as EnvelopeKind) === 'bundle') throw new HeError('INVALID_INPUT', 'use encodeBundle to write a bundle')
  if (!isEnvelopeKind(kind)) throw new HeError('INVALID_INPUT', `unknown envelope kind ${JSON.stringify(kind)}`)
  assertEnvelopeId(fingerprint, 'fingerprint')
  checkKeySetIdFor(kind, keySetId)
  const seeded = input.seeded === true
  if (seeded && !SEEDABLE_KINDS.has(kind)) throw new HeError('INVALID_INPUT', `a ${kind} cannot be seeded`)
  const meta = encodeEnvelopeMeta(kind, input.meta)
  const payload = asPlainUint8Array(input.payload)
  let compression: EnvelopeCompression
  if (isPackedPayload(payload) || isPackedGaloisKeysPayload(payload)) {
    const keys = isPackedGaloisKeysPayload(payload)
    if (kind !== (keys ? 'galoisKeys' : 'ciphertext')) {
      throw new HeError('INVALID_INPUT', `a packed ${keys ? 'Galois-key' : 'ciphertext'} payload is no ${kind}`)
    }
    const packed = keys
      ? checkPackedGaloisKeysLayout(payload, 'INVALID_INPUT')
      : checkPackedLayout(payload, 'INVALID_INPUT')
    if ('elements' in packed) {
      const listed = [...new Set((input.meta as { elements: number[] }).elements)].sort((a, b) => a - b)
      if (listed.join() !== packed.elements.join()) {
        throw new HeError(
          'INVALID_INPUT',
          `meta lists Galois elements ${listed.join(', ')}, the packed keys hold ${packed.elements.join(', ')}`,
        )
      }
    }
    if (packed.seeded !== seeded) {
      throw new HeError(
        'INVALID_INPUT',
        `the packed payload is ${packed.seeded ? '' : 'not '}seeded: set seeded to match`,
      )
    }
    compression = 'packed'
  } else {
    compression = checkSealBlobHeader(payload, 'INVALID_INPUT').compression
  }
  return writeEnvelope({ kind, seeded, compression, fingerprint, keySetId, meta, payload: [payload] })
}
