import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { crc32 } from './crc32.ts'
import { checkEnvelopeExpect, type EnvelopeExpect } from './envelopeExpect.ts'
import type { EnvelopeKind } from './envelopeKinds.ts'
import { ENVELOPE_HEADER_BYTES } from './envelopeLayout.ts'
import { type EnvelopeMetaByKind, parseEnvelopeMeta } from './envelopeMeta.ts'
import { checkPackedLayout } from './packedCiphertext.ts'
import { checkPackedGaloisKeysLayout } from './packedGaloisKeys.ts'
import { type EnvelopeHeader, readEnvelopeFrame, readEnvelopeIdentity } from './readEnvelopeHeader.ts'
import { checkSealBlobHeader } from './sealBlobHeader.ts'

/**
 * A decoded, verified envelope. `payload` and `bytes` are views into the input (no
 * copy), always plain `Uint8Array`s, so `payload` can go straight to SEAL's
 * `loadFromArray` and `bytes` can be stored or forwarded as is.
 */
export type Envelope<K extends EnvelopeKind = EnvelopeKind> = {
  [P in K]: Omit<EnvelopeHeader, 'kind'> & {
    kind: P
    meta: EnvelopeMetaByKind[P]
    /** The serialized SEAL object (for a bundle: its items, back to back). */
    payload: Uint8Array
    /** The whole envelope. */
    bytes: Uint8Array
  }
}[K]

const utf8 = new TextDecoder('utf-8', { fatal: true })

function readMeta(kind: EnvelopeKind, bytes: Uint8Array): unknown {
  let json: unknown
  try {
    json = JSON.parse(utf8.decode(bytes))
  } catch (error) {
    throw new HeError('INVALID_ENVELOPE', `${kind} envelope meta is not valid UTF-8 JSON`, { cause: error })
  }
  return parseEnvelopeMeta(kind, json, 'INVALID_ENVELOPE')
}

/**
 * Packed Galois keys list their elements in the payload too: they must be the meta's
 * (the store, the key cache's budget and the pre-SEAL checks of later requests go by the meta).
 */
function checkListedElements(what: string, listed: readonly number[], packed: readonly number[]): void {
  const sorted = [...new Set(listed)].sort((a, b) => a - b)
  if (sorted.length !== packed.length || sorted.some((element, i) => element !== packed[i])) {
    throw new HeError(
      'INVALID_ENVELOPE',
      `${what} lists Galois elements ${sorted.join(', ')} but its packed payload holds ${packed.join(', ')}`,
      { details: { listed: sorted, present: [...packed] } },
    )
  }
}

/**
 * The steps of `decodeEnvelope` on a plain Uint8Array. `what` names the envelope in
 * messages (e.g. "bundle item 3").
 */
export function decodeEnvelopeBytes<K extends EnvelopeKind>(
  bytes: Uint8Array,
  expect: EnvelopeExpect<K>,
  what = 'envelope',
  { checksum = true }: { checksum?: boolean } = {},
): Envelope<K> {
  const frame = readEnvelopeFrame(bytes, true, what)
  const bodyLength = frame.byteLength - 4
  const stored = new DataView(bytes.buffer, bytes.byteOffset + bodyLength, 4).getUint32(0, true)
  const computed = checksum ? crc32(bytes.subarray(0, bodyLength)) : stored
  if (stored !== computed) {
    const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`
    throw new HeError(
      'ENVELOPE_INTEGRITY',
      `${what} is corrupted: CRC-32 is ${hex(computed)} but the envelope says ${hex(stored)}`,
      { details: { expected: hex(stored), found: hex(computed) } },
    )
  }
  const identity = readEnvelopeIdentity(bytes, what)
  checkEnvelopeExpect(identity, expect, what)
  const metaStart = ENVELOPE_HEADER_BYTES
  const payloadStart = metaStart + frame.metaLength
  const meta = readMeta(identity.kind, bytes.subarray(metaStart, payloadStart))
  const payload = bytes.subarray(payloadStart, bodyLength)
  if (identity.compression === 'packed') {
    const packed =
      identity.kind === 'galoisKeys'
        ? checkPackedGaloisKeysLayout(payload, 'INVALID_ENVELOPE')
        : checkPackedLayout(payload, 'INVALID_ENVELOPE')
    if (packed.seeded !== identity.seeded) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `${what} is ${identity.seeded ? '' : 'not '}marked seeded but its packed payload stores ${packed.polys} polynomials${identity.kind === 'galoisKeys' ? ' per key' : ''}`,
      )
    }
    if ('elements' in packed) checkListedElements(what, (meta as { elements: number[] }).elements, packed.elements)
  } else if (identity.kind !== 'bundle') {
    const seal = checkSealBlobHeader(payload, 'INVALID_ENVELOPE')
    if (seal.compression !== identity.compression) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `${what} says compression ${identity.compression} but its SEAL payload says ${seal.compression}`,
      )
    }
  }
  return { ...frame, ...identity, meta, payload, bytes } as Envelope<K>
}

/**
 * Decodes and verifies one envelope BEFORE any SEAL call, in this order: length and
 * truncation, magic, format version (INVALID_ENVELOPE); CRC-32 (ENVELOPE_INTEGRITY);
 * header codes; secret-key refusal (SECRET_KEY_REFUSED); kind (ENVELOPE_KIND_MISMATCH);
 * params fingerprint (PARAMS_MISMATCH); key set (KEY_SET_MISMATCH); meta schema and
 * the payload's SEAL header (INVALID_ENVELOPE). Accepts a Node Buffer without copying.
 * For a bundle this verifies the outer envelope only; `decodeBundle` verifies its items.
 */
export function decodeEnvelope<K extends EnvelopeKind = EnvelopeKind>(
  bytes: BytesLike,
  expect: EnvelopeExpect<K> = {},
): Envelope<K> {
  return decodeEnvelopeBytes(asPlainUint8Array(bytes), expect)
}
