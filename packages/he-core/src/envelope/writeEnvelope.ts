import { crc32 } from './crc32.ts'
import { writeEnvelopeId } from './envelopeIds.ts'
import { compressionCode, type EnvelopeCompression, type EnvelopeKind, kindCode } from './envelopeKinds.ts'
import {
  ENVELOPE_FORMAT_VERSION,
  ENVELOPE_HEADER_BYTES,
  ENVELOPE_MAGIC,
  ENVELOPE_TRAILER_BYTES,
  FLAG_SEEDED,
  OFFSET_COMPRESSION,
  OFFSET_FINGERPRINT,
  OFFSET_FLAGS,
  OFFSET_KEY_SET_ID,
  OFFSET_KIND,
  OFFSET_META_LENGTH,
  OFFSET_PAYLOAD_LENGTH,
  OFFSET_VERSION,
} from './envelopeLayout.ts'

/** Validated fields of an envelope to write. */
export interface EnvelopeFields {
  kind: EnvelopeKind
  seeded: boolean
  compression: EnvelopeCompression
  fingerprint: string
  keySetId: string | undefined
  /** The meta block, already validated and UTF-8 encoded. */
  meta: Uint8Array
  /** The payload, in pieces (a bundle's items) so they are copied once, into the envelope. */
  payload: readonly Uint8Array[]
}

/** Lays out one envelope in a single new buffer. Callers validate every field first. */
export function writeEnvelope(fields: EnvelopeFields): Uint8Array {
  const payloadLength = fields.payload.reduce((sum, part) => sum + part.length, 0)
  const bodyLength = ENVELOPE_HEADER_BYTES + fields.meta.length + payloadLength
  const out = new Uint8Array(bodyLength + ENVELOPE_TRAILER_BYTES)
  const view = new DataView(out.buffer)
  out.set(ENVELOPE_MAGIC, 0)
  view.setUint8(OFFSET_VERSION, ENVELOPE_FORMAT_VERSION)
  view.setUint8(OFFSET_KIND, kindCode(fields.kind))
  view.setUint8(OFFSET_FLAGS, fields.seeded ? FLAG_SEEDED : 0)
  view.setUint8(OFFSET_COMPRESSION, compressionCode(fields.compression))
  writeEnvelopeId(out, OFFSET_FINGERPRINT, fields.fingerprint)
  if (fields.keySetId !== undefined) writeEnvelopeId(out, OFFSET_KEY_SET_ID, fields.keySetId)
  view.setUint32(OFFSET_PAYLOAD_LENGTH, payloadLength % 2 ** 32, true)
  view.setUint32(OFFSET_PAYLOAD_LENGTH + 4, Math.floor(payloadLength / 2 ** 32), true)
  view.setUint32(OFFSET_META_LENGTH, fields.meta.length, true)
  out.set(fields.meta, ENVELOPE_HEADER_BYTES)
  let offset = ENVELOPE_HEADER_BYTES + fields.meta.length
  for (const part of fields.payload) {
    out.set(part, offset)
    offset += part.length
  }
  view.setUint32(bodyLength, crc32(out.subarray(0, bodyLength)), true)
  return out
}
