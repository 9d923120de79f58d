import { HeError } from '../errors/HeError.ts'
import { checkSealPayload, type SealPayloadShape } from './checkSealPayload.ts'
import type { EnvelopeCompression, SealObjectKind } from './envelopeKinds.ts'
import { canInflate, inflateSealPayload } from './inflateSealPayload.ts'
import { checkPackedGaloisKeysLayout } from './packedGaloisKeys.ts'
import { maxPayloadBytes, minCompressedPayloadBytes, type SealPayloadLimits } from './sealPayloadLimits.ts'

/** A payload ready for SEAL's `loadFromArray`, and what its pre-parse found. */
export interface PreparedSealPayload {
  /** Uncompressed and checked; or, where nothing can inflate it (a browser), the compressed original; or packed Galois keys without a context, as they are. */
  payload: Uint8Array
  /** Undefined only for a compressed payload that could not be inflated here. */
  shape: SealPayloadShape | undefined
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i])
}

/**
 * The structure of packed Galois keys under parameters nobody here has built (no primes
 * to check residues against, no parms id to rebuild SEAL's save with): the layout
 * (decodeEnvelope has checked it, and its elements against the meta), n and the primes
 * within `limits`. SEAL's save is rebuilt, every residue checked, when they are loaded
 * under their own context.
 */
function packedGaloisKeysShape(payload: Uint8Array, limits: SealPayloadLimits, what: string): SealPayloadShape {
  const shape = checkPackedGaloisKeysLayout(payload, 'INVALID_ENVELOPE')
  if (!limits.polyModulusDegrees.includes(shape.polyModulusDegree)) {
    throw new HeError(
      'INVALID_ENVELOPE',
      `the ${what} has poly_modulus_degree ${shape.polyModulusDegree}; allowed here: ${limits.polyModulusDegrees.join(', ')}`,
    )
  }
  if (shape.primes > limits.keyPrimeCount) {
    throw new HeError('INVALID_ENVELOPE', `the ${what} spans ${shape.primes} primes; at most ${limits.keyPrimeCount}`)
  }
  return {
    polyModulusDegree: shape.polyModulusDegree,
    coeffModulusSize: shape.primes,
    seeded: shape.seeded,
    galoisElements: shape.elements,
  }
}

/**
 * The refusal of a compressed key payload smaller than the keys its envelope lists could
 * ever compress to under exact `limits` (`minCompressedPayloadBytes`): INVALID_ENVELOPE,
 * before anything is inflated; undefined when the payload is large enough, not
 * compressed, or the limits are not exact.
 */
export function compressedPayloadFloorError(
  envelope: { kind: SealObjectKind; compression: EnvelopeCompression; payload: Uint8Array; meta: object },
  limits: SealPayloadLimits,
  what = `${envelope.kind} envelope`,
): HeError | undefined {
  const { kind, payload } = envelope
  if (envelope.compression === 'none' || envelope.compression === 'packed') return undefined
  const claimed = kind === 'galoisKeys' ? (envelope.meta as { elements?: number[] }).elements : undefined
  const listed = claimed ? new Set(claimed).size : undefined
  const least = minCompressedPayloadBytes(kind, limits, listed)
  if (payload.length >= least) return undefined
  const keys = kind === 'galoisKeys' ? `the keys of the ${listed} Galois elements it lists` : `${kind}`
  return new HeError(
    'INVALID_ENVELOPE',
    `the ${what}'s ${envelope.compression} payload is ${payload.length} bytes, but ${kind === 'galoisKeys' ? `it lists ${listed} Galois elements, and their keys` : `${keys} under these parameters`} take at least ${least} bytes however they are compressed (their coefficients are random modulo primes of ${limits.minPrimeBits} bits or more): refused before inflating it`,
    { details: { payloadBytes: payload.length, leastBytes: least, ...(listed === undefined ? {} : { listed }) } },
  )
}

/**
 * Makes an envelope's payload safe to hand to SEAL: inflates a compressed payload
 * with a bound computed from `limits` (and the Galois elements the envelope claims),
 * then pre-parses it with `checkSealPayload`. For Galois keys the elements present
 * must be exactly those the envelope's meta lists. Every refusal is INVALID_ENVELOPE.
 * Packed payloads load through `loadSealObject`, which unpacks them under its context;
 * here only packed Galois keys without a context (`structuralPayloadLimits`) pass, their
 * structure checked and their payload returned as it is, for no SEAL to load.
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
    // loadSealObject unpacks under its context first; only keys of parameters nobody has built come here.
    if (kind !== 'galoisKeys' || limits.exact) {
      throw new HeError('INVALID_INPUT', `the ${what} is packed: load it with loadSealObject, which unpacks it`)
    }
    return { payload, shape: packedGaloisKeysShape(envelope.payload, limits, what) }
  }
  if (envelope.compression !== 'none') {
    const tooSmall = compressedPayloadFloorError(envelope, limits, what)
    if (tooSmall) throw tooSmall
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
