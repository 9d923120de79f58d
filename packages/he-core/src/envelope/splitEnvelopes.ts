import { HeError } from '../errors/HeError.ts'
import { readEnvelopeFrame } from './readEnvelopeHeader.ts'

/** How `splitEnvelopes` bounds and names the pieces. */
export interface SplitEnvelopesOptions {
  /** At most this many envelopes; one more is refused before it is read. */
  max?: number
  /** The error for an envelope past `max` (default LIMIT_EXCEEDED naming the limit). */
  tooMany?: (max: number) => HeError
  /** What errors call each piece, numbered from 0 (default `envelope`: `envelope 2 is truncated…`). */
  what?: string
}

function limitExceeded(max: number): HeError {
  return new HeError('LIMIT_EXCEEDED', `at most ${max} envelopes per request`, { details: { limit: max } })
}

/**
 * Splits envelopes written back to back (a multi-query search request or response, a
 * bundle's payload) using each header's declared length. Only framing (magic,
 * version, lengths) is read here, never checksums or payloads: every envelope is fully
 * verified where it is used. The pieces are views into `bytes`, not copies.
 */
export function splitEnvelopes(bytes: Uint8Array, options: SplitEnvelopesOptions = {}): Uint8Array[] {
  const { max = Number.POSITIVE_INFINITY, tooMany = limitExceeded, what = 'envelope' } = options
  const parts: Uint8Array[] = []
  let offset = 0
  while (offset < bytes.length) {
    if (parts.length === max) throw tooMany(max)
    const name = `${what} ${parts.length}`
    const rest = bytes.subarray(offset)
    const { byteLength } = readEnvelopeFrame(rest, false, name)
    if (byteLength > rest.length) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `${name} is truncated: it declares ${byteLength} bytes, ${rest.length} remain`,
      )
    }
    parts.push(rest.subarray(0, byteLength))
    offset += byteLength
  }
  return parts
}
