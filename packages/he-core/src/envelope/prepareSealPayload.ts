import { HeError } from '../errors/HeError.ts'
import { checkSealPayload, type SealPayloadShape } from './checkSealPayload.ts'
import type { EnvelopeCompression, SealObjectKind } from './envelopeKinds.ts'
import { canInflate, inflateSealPayload } from './inflateSealPayload.ts'
import { maxPayloadBytes, minCompressedPayloadBytes, type SealPayloadLimits } from './sealPayloadLimits.ts'

/** A payload ready for SEAL's `loadFromArray`, and what its pre-parse found. */
export interface PreparedSealPayload {
  /** Uncompressed and checked; or, where nothing can inflate it (a browser), the compressed original. */
  payload: Uint8Array
  /** Undefined only for a compressed payload that could not be inflated here. */
  shape: SealPayloadShape | undefined
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i])
}

/**
 * Makes an envelope's payload safe to hand to SEAL: inflates a compressed payload
 * with a bound computed from `limits` (and the Galois elements the envelope claims),
 * then pre-parses it with `checkSealPayload`. For Galois keys the elements present
 * must be exactly those the envelope's meta lists. Every refusal is INVALID_ENVELOPE.
 */
export function prepareSealPayload(
  envelope: {
    kind: SealObjectKind
    compression: EnvelopeCompression
    payload: Uint8Array
    meta: object
    seeded?: boolean
  },
  limits: SealPayloadLimits,
  what = `${envelope.kind} envelope`,
): PreparedSealPayload {
  const kind = envelope.kind
  const claimed = kind === 'galoisKeys' ? (envelope.meta as { elements?: number[] }).elements : undefined
  const listed = claimed ? new Set(claimed).size : undefined
  let payload = envelope.payload
  if (envelope.compression === 'packed') {
    // loadSealObject unpacks first; anything else handing a packed payload here is a caller bug.
    throw new HeError('INVALID_INPUT', `the ${what} is packed: unpack it with unpackSealCiphertext first`)
  }
  if (envelope.compression !== 'none') {
    const least = minCompressedPayloadBytes(kind, limits, listed)
    if (payload.length < least) {
      const keys = kind === 'galoisKeys' ? `the keys of the ${listed} Galois elements it lists` : `${kind}`
      throw new HeError(
        'INVALID_ENVELOPE',
        `the ${what}'s ${envelope.compression} payload is ${payload.length} bytes, but ${kind === 'galoisKeys' ? `it lists ${listed} Galois elements, and their keys` : `${keys} under these parameters`} take at least ${least} bytes however they are compressed (their coefficients are random modulo primes of ${limits.minPrimeBits} bits or more): refused before inflating it`,
        { details: { payloadBytes: payload.length, leastBytes: least, ...(listed === undefined ? {} : { listed }) } },
      )
    }
    if (!canInflate(envelope.compression)) return { payload, shape: undefined }
    // Exact for what the envelope says it holds; a payload past it is refused as soon as it gets there.
    const bound = maxPayloadBytes(kind, limits, listed, envelope.seeded === true)
    payload = inflateSealPayload(payload, envelope.compression, bound, `the ${what}'s ${envelope.compression} payload`)
  }
  const shape = checkSealPayload(kind, payload, limits)
  if (claimed && shape.galoisElements) {
    const sorted = [...claimed].sort((a, b) => a - b)
    if (!sameList(sorted, shape.galoisElements)) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `the ${what} lists Galois elements ${sorted.join(', ') || '(none)'} but its payload holds ${shape.galoisElements.join(', ')}`,
        { details: { listed: sorted, present: shape.galoisElements } },
      )
    }
  }
  return { payload, shape }
}
