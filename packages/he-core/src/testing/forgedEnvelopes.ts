import { crc32 } from '../envelope/crc32.ts'
import { compressionCode, type EnvelopeCompression } from '../envelope/envelopeKinds.ts'
import { ENVELOPE_TRAILER_BYTES } from '../envelope/envelopeLayout.ts'
import { SEAL_HEADER_BYTES } from '../envelope/sealBlobHeader.ts'
import { HeError } from '../errors/HeError.ts'

/*
 * Helpers for tests that need envelopes without SEAL, or forged ones: the envelope
 * tests here, and the server's tests of what it refuses.
 */

/**
 * A byte string with a valid SEAL 4.1 header and `bodyBytes` of filler: enough for
 * the envelope, which checks only the header, never enough for SEAL to load.
 */
export function fakeSealPayload(bodyBytes: number, compression: EnvelopeCompression = 'none', fill = 0xab): Uint8Array {
  const payload = new Uint8Array(SEAL_HEADER_BYTES + bodyBytes).fill(fill)
  const view = new DataView(payload.buffer)
  view.setUint16(0, 0xa15e, true)
  view.setUint8(2, SEAL_HEADER_BYTES)
  view.setUint8(3, 4)
  view.setUint8(4, 1)
  view.setUint8(5, compressionCode(compression))
  view.setUint16(6, 0, true)
  view.setUint32(8, payload.length, true)
  view.setUint32(12, 0, true)
  return payload
}

/**
 * Recomputes the CRC-32 trailer of a (tampered) envelope in place, so a test can
 * reach the checks that run after the checksum. Returns the same bytes.
 */
export function rechecksum(envelope: Uint8Array): Uint8Array {
  const body = envelope.length - ENVELOPE_TRAILER_BYTES
  new DataView(envelope.buffer, envelope.byteOffset, envelope.length).setUint32(
    body,
    crc32(envelope.subarray(0, body)),
    true,
  )
  return envelope
}

/**
 * The `HeError` that `fn` throws. Fails loudly when `fn` returns, or throws anything
 * else, so a test can assert `heErrorOf(() => ...).code` in one line.
 */
export function heErrorOf(fn: () => unknown): HeError {
  try {
    fn()
  } catch (error) {
    if (error instanceof HeError) return error
    throw new HeError('INTERNAL', `expected an HeError, got ${String(error)}`, { cause: error })
  }
  throw new HeError('INTERNAL', 'expected an HeError, but nothing was thrown')
}

/**
 * A copy of an uncompressed SEAL ciphertext (or public key) payload whose parms_id is
 * scrambled: every count and size still adds up, so the pre-parse passes it, but SEAL
 * refuses it as "not valid for these parameters". For tests of what reaches SEAL.
 */
export function scrambleParmsId(payload: Uint8Array): Uint8Array {
  const copy = payload.slice()
  for (let i = SEAL_HEADER_BYTES; i < SEAL_HEADER_BYTES + 32; i++) copy[i] = 0x5a
  return copy
}
