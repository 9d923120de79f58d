import { HeError, peekEnvelope } from '@sealbox/he-core'

/**
 * Splits a body of envelopes written back to back (several search queries in one
 * request) using each header's declared length. Only framing is read here; every
 * envelope is fully verified (checksum and all) where it is used.
 */
export function splitEnvelopes(bytes: Uint8Array, max: number): Uint8Array[] {
  const parts: Uint8Array[] = []
  let offset = 0
  while (offset < bytes.length) {
    if (parts.length === max) {
      throw new HeError('LIMIT_EXCEEDED', `at most ${max} envelopes per request`, { details: { limit: max } })
    }
    const rest = bytes.subarray(offset)
    const { byteLength } = peekEnvelope(rest)
    if (byteLength > rest.length) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `envelope ${parts.length} is truncated: it declares ${byteLength} bytes, ${rest.length} remain`,
      )
    }
    parts.push(rest.subarray(0, byteLength))
    offset += byteLength
  }
  return parts
}
