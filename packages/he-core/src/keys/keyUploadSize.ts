import { asPlainUint8Array, type BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeEnvelopeBytes, type Envelope } from '../envelope/decodeEnvelope.ts'
import type { EnvelopeKind } from '../envelope/envelopeKinds.ts'
import { compressedPayloadFloorError } from '../envelope/prepareSealPayload.ts'
import { maxPayloadBytes, type SealPayloadLimits, structuralPayloadLimits } from '../envelope/sealPayloadLimits.ts'
import { splitEnvelopes } from '../envelope/splitEnvelopes.ts'
import type { HeError } from '../errors/HeError.ts'

/** Inflated bytes allowed per compressed byte for keys checked without SEAL: genuine keys inflate 1.4–3×. */
export const UNLOADED_KEY_INFLATE_RATIO = 4
/** Plus this much: empty Galois slots add 8 bytes per n, which compress to nothing. */
export const UNLOADED_KEY_INFLATE_SLACK = 1 << 20

/**
 * The most a compressed key payload of `payloadBytes` is inflated to when its parameters
 * are unknown (keys checked by their structure, without SEAL): the shapes alone allow
 * up to 64 primes at the largest n, so the bound is a multiple of the compressed size.
 */
export function unloadedKeyInflateBound(payloadBytes: number): number {
  return UNLOADED_KEY_INFLATE_RATIO * payloadBytes + UNLOADED_KEY_INFLATE_SLACK
}

/** The parameters under which an upload's keys are loaded into SEAL to check them (a server's search). */
export interface KeyLoadTarget {
  /** Their params fingerprint: keys under it are loaded, any other keys are checked without SEAL. */
  fingerprint: string
  /** n. */
  polyModulusDegree: number
  /** Primes of the coefficient modulus, the special prime included. */
  keyPrimeCount: number
  /** Bits of the smallest prime: with it, a payload below the keys' entropy floor is found too (`refusal`). */
  minPrimeBits?: number
}

/** What checking an upload of evaluation keys handles, known from its envelopes' headers and meta. */
export interface KeyUploadSize {
  /** Bytes uploaded. */
  uploadedBytes: number
  /**
   * The most bytes its payloads become before they are checked: inflated (within exactly
   * this bound), unpacked, or as they are. Exact for keys under the load target: what the
   * listed Galois elements take; for other keys the multiple of the compressed size
   * they are inflated within.
   */
  inflatedBytes: number
  /** Bytes the keys take in SEAL once loaded (seeds expanded, every listed element); 0 when not loaded. */
  loadedBytes: number
  /** Whether the keys are loaded into SEAL (they are under the load target's parameters). */
  loaded: boolean
  /** Galois elements the meta lists (distinct). */
  galoisElements: number
  /**
   * How a worker refuses the upload before inflating anything, when it will: a compressed
   * payload under the load target smaller than the keys it lists could compress to (the
   * same INVALID_ENVELOPE, so it can be answered without any worker time).
   */
  refusal?: HeError
}

/** The inflated and loaded size of one key envelope. */
function envelopeSize(
  envelope: Envelope,
  loadLimits: SealPayloadLimits | undefined,
  maxPolyModulusDegree: number,
): { inflated: number; loaded: number; listed: number; refusal?: HeError } {
  const kind = envelope.kind
  if (kind !== 'relinKeys' && kind !== 'galoisKeys') return { inflated: 0, loaded: 0, listed: 0 }
  const payload = envelope.payload.length
  const elements = kind === 'galoisKeys' ? (envelope.meta as { elements?: number[] }).elements : undefined
  const listed = elements ? new Set(elements).size : undefined
  if (loadLimits) {
    // Packed keys unpack to SEAL's save and compressed ones inflate within the same exact
    // bound (prepareSealPayload, unpackSealGaloisKeys); SEAL then expands every seed. A
    // payload must hold exactly the elements listed before SEAL loads it, so an
    // uncompressed one loads at most what its own bytes hold (twice that when seeded).
    const full = maxPayloadBytes(kind, loadLimits, listed, false)
    if (envelope.compression === 'none') {
      return { inflated: payload, loaded: Math.min(full, (envelope.seeded ? 2 : 1) * payload), listed: listed ?? 0 }
    }
    const refusal = compressedPayloadFloorError(envelope, loadLimits)
    return {
      inflated: maxPayloadBytes(kind, loadLimits, listed, envelope.seeded),
      loaded: full,
      listed: listed ?? 0,
      ...(refusal ? { refusal } : {}),
    }
  }
  // Packed keys of unknown parameters are checked by their layout, as they are.
  if (envelope.compression === 'none' || envelope.compression === 'packed') {
    return { inflated: payload, loaded: 0, listed: listed ?? 0 }
  }
  const limits = structuralPayloadLimits({ maxPolyModulusDegree, maxInflatedBytes: unloadedKeyInflateBound(payload) })
  return { inflated: maxPayloadBytes(kind, limits, listed, envelope.seeded), loaded: 0, listed: listed ?? 0 }
}

/**
 * What checking an upload of evaluation keys (an envelope, or a bundle of two) will
 * inflate and load, from its headers and meta alone — before anything is inflated, and
 * cheap enough for an event loop (no checksum is computed, nothing is copied). Keys under
 * `load` are loaded into SEAL: their size follows exactly from the parameters and the
 * Galois elements their meta lists, however small the compressed payload is. The headers
 * and meta are read unverified: a worker verifies the checksum before it inflates
 * anything, and then inflates within the bounds the same meta gives, so this is what
 * the check can take at most. Throws INVALID_ENVELOPE where the framing does not read
 * (the worker refuses such an upload before inflating anything); with the load target's
 * smallest prime, also says (`refusal`) when a payload is below its keys' entropy floor.
 */
export function keyUploadSize(
  bytes: BytesLike,
  options: { load?: KeyLoadTarget | undefined; maxPolyModulusDegree: number },
): KeyUploadSize {
  const plain = asPlainUint8Array(bytes)
  const outer = decodeEnvelopeBytes(plain, {}, 'key set', { checksum: false })
  const envelopes: Envelope[] =
    (outer.kind as EnvelopeKind) === 'bundle'
      ? splitEnvelopes(outer.payload, { max: 2, what: 'bundle item' }).map((part, i) =>
          decodeEnvelopeBytes(part, {}, `bundle item ${i}`, { checksum: false }),
        )
      : [outer]
  const load = options.load
  const loaded = load !== undefined && outer.fingerprint === load.fingerprint
  const loadLimits: SealPayloadLimits | undefined = loaded
    ? {
        polyModulusDegrees: [load.polyModulusDegree],
        keyPrimeCount: load.keyPrimeCount,
        exact: true,
        ...(load.minPrimeBits === undefined ? {} : { minPrimeBits: load.minPrimeBits }),
      }
    : undefined
  let inflatedBytes = 0
  let loadedBytes = 0
  let galoisElements = 0
  let refusal: HeError | undefined
  for (const envelope of envelopes) {
    const size = envelopeSize(envelope, loadLimits, options.maxPolyModulusDegree)
    inflatedBytes += size.inflated
    loadedBytes += size.loaded
    galoisElements += size.listed
    refusal ??= size.refusal
  }
  return {
    uploadedBytes: plain.length,
    inflatedBytes,
    loadedBytes,
    loaded,
    galoisElements,
    ...(refusal ? { refusal } : {}),
  }
}
