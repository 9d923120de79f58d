import { HeError } from '../errors/HeError.ts'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const DECODE = new Int16Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i

const ALPHABET_CODES = new TextEncoder().encode(ALPHABET)
const PAD = 61

/**
 * Standard base64 (RFC 4648 §4, with padding) of `bytes`, for JSON transports. Binary
 * is the primary transport: base64 costs a third more bytes. Implemented here rather
 * than with `btoa` (which wants a binary string) so it is exact and linear for
 * multi-megabyte keys in every runtime.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const a = ALPHABET_CODES
  const out = new Uint8Array(4 * Math.ceil(bytes.length / 3))
  let o = 0
  let i = 0
  for (; i + 3 <= bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out[o++] = a[n >>> 18] as number
    out[o++] = a[(n >>> 12) & 63] as number
    out[o++] = a[(n >>> 6) & 63] as number
    out[o++] = a[n & 63] as number
  }
  const rest = bytes.length - i
  if (rest > 0) {
    const n = ((bytes[i] as number) << 16) | (rest === 2 ? (bytes[i + 1] as number) << 8 : 0)
    out[o++] = a[n >>> 18] as number
    out[o++] = a[(n >>> 12) & 63] as number
    out[o++] = rest === 2 ? (a[(n >>> 6) & 63] as number) : PAD
    out[o++] = PAD
  }
  // Every byte is ASCII, so decoding them as UTF-8 is exact (and native-speed).
  return new TextDecoder().decode(out)
}

function invalid(reason: string): HeError {
  return new HeError('INVALID_INPUT', `invalid base64: ${reason}`)
}

/**
 * Decodes standard base64 (padding optional; no whitespace, no URL alphabet) into a
 * plain Uint8Array. Anything else is an `INVALID_INPUT` naming the first bad position,
 * rather than the silent skipping some decoders do.
 */
export function base64ToBytes(text: string): Uint8Array {
  if (typeof text !== 'string') throw invalid(`expected a string, got ${typeof text}`)
  let end = text.length
  if (end % 4 === 0 && end > 0) {
    if (text.charCodeAt(end - 1) === PAD) end--
    if (text.charCodeAt(end - 1) === PAD) end--
  }
  if (end % 4 === 1) throw invalid(`length ${text.length} is not a valid base64 length`)
  const out = new Uint8Array(Math.floor((end * 3) / 4))
  let o = 0
  let acc = 0
  let bits = 0
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i)
    const value = code < 128 ? (DECODE[code] as number) : -1
    if (value < 0) throw invalid(`unexpected character ${JSON.stringify(text[i])} at position ${i}`)
    acc = ((acc << 6) | value) & 0xffffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (acc >>> bits) & 0xff
    }
  }
  // Non-zero leftover bits mean the text was not produced by a canonical encoder.
  if ((acc & ((1 << bits) - 1)) !== 0) throw invalid('non-zero padding bits')
  return out
}
