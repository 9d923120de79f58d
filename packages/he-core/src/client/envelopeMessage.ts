import { asPlainUint8Array, type BytesLike } from '../envelope/asPlainUint8Array.ts'
import { peekEnvelope } from '../envelope/readEnvelopeHeader.ts'
import { HeError } from '../errors/HeError.ts'

/** `SBXE`: an evaluate request; `SBXR`: its reply. */
export type EnvelopeMessageMagic = 'SBXE' | 'SBXR'

/** A small JSON header and the envelopes after it (views into the input, not copies). */
export interface EnvelopeMessage {
  header: unknown
  envelopes: Uint8Array[]
}

/** What a reader accepts. */
export interface ReadEnvelopeMessageOptions {
  magic: EnvelopeMessageMagic
  /** How errors name the message, e.g. "evaluate request". */
  what: string
  maxHeaderBytes: number
  maxEnvelopes: number
}

const VERSION = 1
/** Magic (4), version (1), zero (3), header length (uint32 LE). */
const PREFIX_BYTES = 12
const OPEN_BRACE = 0x7b

/**
 * Writes a JSON header and envelopes as one binary message: magic, version, the
 * header's length, the header, then the envelopes back to back (each framed by its own
 * header, so no lengths are repeated). Envelopes travel as they are: no base64, no copy
 * but the one into the message.
 */
export function writeEnvelopeMessage(
  magic: EnvelopeMessageMagic,
  header: unknown,
  envelopes: readonly Uint8Array[],
  maxHeaderBytes: number,
): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(header))
  if (json.length > maxHeaderBytes) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `the JSON header is ${json.length} bytes; at most ${maxHeaderBytes} are allowed`,
      {
        details: { limit: maxHeaderBytes, found: json.length },
      },
    )
  }
  const total = envelopes.reduce((sum, envelope) => sum + envelope.byteLength, PREFIX_BYTES + json.length)
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  for (let i = 0; i < 4; i++) out[i] = magic.charCodeAt(i)
  out[4] = VERSION
  view.setUint32(8, json.length, true)
  out.set(json, PREFIX_BYTES)
  let offset = PREFIX_BYTES + json.length
  for (const envelope of envelopes) {
    out.set(envelope, offset)
    offset += envelope.byteLength
  }
  return out
}

/**
 * Reads a message written by `writeEnvelopeMessage`. Only the framing is checked here
 * (magic, version, lengths, the header's JSON, each envelope's declared length): every
 * length is compared with the bytes that remain before anything is sliced, so a length
 * that claims gigabytes is refused without allocating; envelopes are fully verified
 * (checksum included) where they are loaded. Errors: INVALID_INPUT (the message),
 * LIMIT_EXCEEDED (header size, envelope count), INVALID_ENVELOPE (an envelope's frame).
 */
export function readEnvelopeMessage(input: BytesLike, options: ReadEnvelopeMessageOptions): EnvelopeMessage {
  const bytes = asPlainUint8Array(input)
  const { what, magic } = options
  const found = String.fromCharCode(...bytes.subarray(0, 4))
  if (found !== magic) {
    const hint =
      bytes[0] === OPEN_BRACE
        ? ' — this looks like JSON; the body is binary (SealboxClient.evaluate or encodeEvaluateRequest write it)'
        : ''
    throw new HeError('INVALID_INPUT', `${what}: expected the magic "${magic}" at the start${hint}`)
  }
  if (bytes.length < PREFIX_BYTES) {
    throw new HeError(
      'INVALID_INPUT',
      `${what} is truncated: ${bytes.length} bytes, the prefix alone is ${PREFIX_BYTES}`,
    )
  }
  if (bytes[4] !== VERSION || bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) {
    throw new HeError(
      'INVALID_INPUT',
      `${what}: format version ${bytes[4]} is not supported (this reader knows ${VERSION})`,
    )
  }
  const headerBytes = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true)
  if (headerBytes > options.maxHeaderBytes) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `${what}: the JSON header declares ${headerBytes} bytes; at most ${options.maxHeaderBytes} are accepted`,
      { details: { limit: options.maxHeaderBytes, found: headerBytes } },
    )
  }
  const headerEnd = PREFIX_BYTES + headerBytes
  if (headerEnd > bytes.length) {
    throw new HeError(
      'INVALID_INPUT',
      `${what} is truncated: the JSON header declares ${headerBytes} bytes, ${bytes.length - PREFIX_BYTES} remain`,
    )
  }
  let header: unknown
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PREFIX_BYTES, headerEnd)))
  } catch (error) {
    throw new HeError('INVALID_INPUT', `${what}: the header is not UTF-8 JSON (${String(error)})`, { cause: error })
  }
  const envelopes: Uint8Array[] = []
  let offset = headerEnd
  while (offset < bytes.length) {
    if (envelopes.length === options.maxEnvelopes) {
      throw new HeError('LIMIT_EXCEEDED', `${what}: more than ${options.maxEnvelopes} envelopes`, {
        details: { limit: options.maxEnvelopes },
      })
    }
    const rest = bytes.subarray(offset)
    const { byteLength } = peekEnvelope(rest)
    if (byteLength > rest.length) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `${what}: envelope ${envelopes.length} is truncated: it declares ${byteLength} bytes, ${rest.length} remain`,
      )
    }
    envelopes.push(rest.subarray(0, byteLength))
    offset += byteLength
  }
  return { header, envelopes }
}
