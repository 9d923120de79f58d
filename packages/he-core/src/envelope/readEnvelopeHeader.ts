import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { NO_KEY_SET_ID, readEnvelopeId } from './envelopeIds.ts'
import {
  compressionFromCode,
  type EnvelopeCompression,
  type EnvelopeKind,
  KEYLESS_KINDS,
  kindFromCode,
  PACKABLE_KINDS,
  SEEDABLE_KINDS,
} from './envelopeKinds.ts'
import {
  ENVELOPE_FORMAT_VERSION,
  ENVELOPE_HEADER_BYTES,
  ENVELOPE_MAGIC,
  ENVELOPE_TRAILER_BYTES,
  FLAG_SEEDED,
  KNOWN_FLAGS,
  MAX_META_BYTES,
  OFFSET_COMPRESSION,
  OFFSET_FINGERPRINT,
  OFFSET_FLAGS,
  OFFSET_KEY_SET_ID,
  OFFSET_KIND,
  OFFSET_META_LENGTH,
  OFFSET_PAYLOAD_LENGTH,
  OFFSET_RESERVED,
  OFFSET_VERSION,
} from './envelopeLayout.ts'

/** The fixed header of an envelope: what it is, whose it is, and how long it is. */
export interface EnvelopeHeader {
  /** Format version (always `ENVELOPE_FORMAT_VERSION` once read). */
  version: number
  kind: EnvelopeKind
  /** The payload was saved from a seeded SEAL `Serializable*` object (about half size). */
  seeded: boolean
  /** SEAL compression mode of the payload (`none` for bundles), or `packed` (sealbox's bit-packed ciphertext). */
  compression: EnvelopeCompression
  /** Params fingerprint, 32 lowercase hex characters. */
  fingerprint: string
  /** Key-set id, 32 lowercase hex characters, or undefined for objects of no key set. */
  keySetId: string | undefined
  metaLength: number
  payloadLength: number
  /** Total bytes of the envelope, header to checksum. */
  byteLength: number
}

function invalid(message: string, details?: Record<string, unknown>): HeError {
  return new HeError('INVALID_ENVELOPE', message, details === undefined ? {} : { details })
}

const SEAL_MAGIC_PREFIX = [0x5e, 0xa1]
// "U0JY" is base64 for "SBX": an envelope that was base64-encoded and not decoded.
const BASE64_MAGIC_PREFIX = [0x55, 0x30, 0x4a, 0x59]

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte)
}

function notAnEnvelope(bytes: Uint8Array, what: string): HeError {
  const start = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ')
  let hint = ''
  if (startsWith(bytes, SEAL_MAGIC_PREFIX)) hint = ' — this looks like a raw SEAL object; wrap it with saveSealObject'
  else if (startsWith(bytes, BASE64_MAGIC_PREFIX)) hint = ' — this looks like base64 text; decode it to bytes first'
  return invalid(`${what} is not a sealbox envelope: expected magic "SBX" (53 42 58), found ${start}${hint}`, {
    found: start,
  })
}

/** The lengths of an envelope, read before anything else is trusted. */
export interface EnvelopeFrame {
  version: number
  metaLength: number
  payloadLength: number
  byteLength: number
}

/**
 * Reads the framing of an envelope: magic, format version and lengths. With
 * `complete`, the input must be exactly one whole envelope; without it, only the
 * header is needed (to learn `byteLength` from the first 52 bytes of a stream).
 */
export function readEnvelopeFrame(bytes: Uint8Array, complete: boolean, what = 'envelope'): EnvelopeFrame {
  if (bytes.length === 0) throw invalid(`${what} is empty: expected a sealbox envelope`)
  const magicSeen = Math.min(bytes.length, ENVELOPE_MAGIC.length)
  for (let i = 0; i < magicSeen; i++) if (bytes[i] !== ENVELOPE_MAGIC[i]) throw notAnEnvelope(bytes, what)
  if (bytes.length < ENVELOPE_HEADER_BYTES) {
    throw invalid(`${what} is truncated: ${bytes.length} bytes, the header alone is ${ENVELOPE_HEADER_BYTES}`, {
      found: bytes.length,
    })
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, ENVELOPE_HEADER_BYTES)
  const version = view.getUint8(OFFSET_VERSION)
  if (version !== ENVELOPE_FORMAT_VERSION) {
    throw invalid(
      `${what} has unsupported format version ${version}: this reader understands version ${ENVELOPE_FORMAT_VERSION}`,
      {
        expected: ENVELOPE_FORMAT_VERSION,
        found: version,
      },
    )
  }
  const payloadLength =
    view.getUint32(OFFSET_PAYLOAD_LENGTH + 4, true) * 2 ** 32 + view.getUint32(OFFSET_PAYLOAD_LENGTH, true)
  const metaLength = view.getUint32(OFFSET_META_LENGTH, true)
  if (metaLength > MAX_META_BYTES) {
    throw invalid(`${what} meta declares ${metaLength} bytes, more than the ${MAX_META_BYTES} allowed`)
  }
  const byteLength = ENVELOPE_HEADER_BYTES + metaLength + payloadLength + ENVELOPE_TRAILER_BYTES
  if (complete && bytes.length !== byteLength) {
    throw bytes.length < byteLength
      ? invalid(`${what} is truncated: its header declares ${byteLength} bytes, got ${bytes.length}`, {
          expected: byteLength,
          found: bytes.length,
        })
      : invalid(`${what} has ${bytes.length - byteLength} unexpected bytes after its ${byteLength}-byte end`, {
          expected: byteLength,
          found: bytes.length,
        })
  }
  return { version, metaLength, payloadLength, byteLength }
}

/** The identity fields of the header. */
export type EnvelopeIdentity = Pick<EnvelopeHeader, 'kind' | 'seeded' | 'compression' | 'fingerprint' | 'keySetId'>

/**
 * Reads and checks the identity fields: known kind, flag and compression codes,
 * reserved byte, seeded only where SEAL can seed, no key set on keyless kinds.
 * `decodeEnvelope` runs it after the checksum, so that random corruption is reported
 * as corruption; a failure here means a writer bug or a forged envelope.
 */
export function readEnvelopeIdentity(bytes: Uint8Array, what = 'envelope'): EnvelopeIdentity {
  const view = new DataView(bytes.buffer, bytes.byteOffset, ENVELOPE_HEADER_BYTES)
  const kindByte = view.getUint8(OFFSET_KIND)
  const kind = kindFromCode(kindByte)
  if (kind === undefined) throw invalid(`${what} has unknown kind code ${kindByte}`, { found: kindByte })
  const flags = view.getUint8(OFFSET_FLAGS)
  if ((flags & ~KNOWN_FLAGS) !== 0) {
    throw invalid(`${what} has unknown flags 0x${flags.toString(16).padStart(2, '0')}`, { found: flags })
  }
  const seeded = (flags & FLAG_SEEDED) !== 0
  if (seeded && !SEEDABLE_KINDS.has(kind)) throw invalid(`${what} is marked seeded, but a ${kind} cannot be seeded`)
  const compressionByte = view.getUint8(OFFSET_COMPRESSION)
  const compression = compressionFromCode(compressionByte)
  if (compression === undefined) {
    throw invalid(`${what} has unknown compression code ${compressionByte}`, { found: compressionByte })
  }
  if (compression === 'packed' && !PACKABLE_KINDS.has(kind)) {
    throw invalid(`${what} is a ${kind} marked packed; only ciphertexts and Galois keys are packed`)
  }
  if (kind === 'bundle' && compression !== 'none') {
    throw invalid(`${what} is a bundle with compression ${compression}; bundles are stored uncompressed`)
  }
  if (view.getUint8(OFFSET_RESERVED) !== 0) throw invalid(`${what} has a non-zero reserved byte`)
  const fingerprint = readEnvelopeId(bytes, OFFSET_FINGERPRINT)
  const rawKeySetId = readEnvelopeId(bytes, OFFSET_KEY_SET_ID)
  const keySetId = rawKeySetId === NO_KEY_SET_ID ? undefined : rawKeySetId
  if (keySetId !== undefined && KEYLESS_KINDS.has(kind)) {
    throw invalid(`${what} is a ${kind}, which belongs to no key set, but carries key-set id ${keySetId}`)
  }
  return { kind, seeded, compression, fingerprint, keySetId }
}

/**
 * Reads an envelope's header WITHOUT verifying its checksum, meta or payload: for
 * showing what a file is, or learning `byteLength` from the first
 * `ENVELOPE_HEADER_BYTES` of a stream. Never trust it for access decisions — use
 * `decodeEnvelope`, which verifies everything.
 */
export function peekEnvelope(bytes: BytesLike): EnvelopeHeader {
  const plain = asPlainUint8Array(bytes)
  const frame = readEnvelopeFrame(plain, false)
  return { ...frame, ...readEnvelopeIdentity(plain) }
}
