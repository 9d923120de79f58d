import type {
  Ciphertext,
  EncryptionParameters,
  GaloisKeys,
  Plaintext,
  PublicKey,
  RelinKeys,
  SEALContext,
  SecretKey,
} from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { SealException } from '../errors/SealException.ts'
import { sealCall } from '../errors/toHeError.ts'
import { selectGaloisKeys } from '../keys/selectGaloisKeys.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { decodeEnvelopeBytes, type Envelope } from './decodeEnvelope.ts'
import { checkEnvelopeExpect, type EnvelopeExpect } from './envelopeExpect.ts'
import type { SealObjectKind } from './envelopeKinds.ts'
import { checkPackedGaloisKeysLayout } from './packedGaloisKeys.ts'
import { type PackedCiphertextContext, unpackSealCiphertext } from './packSealCiphertext.ts'
import { unpackSealGaloisKeys } from './packSealGaloisKeys.ts'
import { prepareSealPayload } from './prepareSealPayload.ts'
import { sealClassKind } from './sealClassKinds.ts'
import { type PayloadLimitsSource, payloadLimitsOf, structuralPayloadLimits } from './sealPayloadLimits.ts'

/** The node-seal class each kind loads into. */
export interface SealLoadTargets {
  params: EncryptionParameters
  secretKey: SecretKey
  publicKey: PublicKey
  relinKeys: RelinKeys
  galoisKeys: GaloisKeys
  plaintext: Plaintext
  ciphertext: Ciphertext
}

/** Kinds that load into a SEAL context (all but params). */
export type ContextObjectKind = Exclude<SealObjectKind, 'params'>

/**
 * A built context, its params fingerprint, and the n and primes every payload is
 * pre-parsed against: an `HeContext` fits.
 */
export interface SealLoadContext extends PayloadLimitsSource {
  readonly context: SEALContext
  readonly fingerprint: string
}

/** What `loadSealObject` checks: the kind (required), and optionally the key set and secret-key refusal. */
export type LoadSealObjectExpect<K extends ContextObjectKind> = Omit<EnvelopeExpect<K>, 'kind' | 'fingerprint'> & {
  kind: K
}

/** How a load narrows the context's limits. */
export interface LoadSealObjectOptions {
  /**
   * Polynomials a ciphertext may have (default SEAL's 16). A program input or a query is
   * fresh (2): a bigger one is refused before its payload is inflated past that size.
   */
  maxCiphertextSize?: number
  /**
   * Galois keys: load only these elements' key lists (the rest of the payload is checked
   * and skipped, never loaded into SEAL). Default: every element.
   */
  onlyGaloisElements?: readonly number[]
}

/**
 * Bytes to decode, or an envelope already decoded (e.g. a bundle item) of any kind:
 * its kind is checked at run time like everything else.
 */
export type EnvelopeSource = BytesLike | Envelope

function isEnvelope(source: EnvelopeSource): source is Envelope {
  return typeof source === 'object' && source !== null && 'payload' in source && 'kind' in source
}

function verify<K extends SealObjectKind>(source: EnvelopeSource, expect: EnvelopeExpect<K>): Envelope<K> {
  if (!isEnvelope(source)) return decodeEnvelopeBytes(asPlainUint8Array(source), expect)
  // Already decoded (and checksummed) by decodeEnvelope: only the expectations are new.
  checkEnvelopeExpect(source, expect)
  return source as Envelope<K>
}

function checkTarget(target: object, kind: SealObjectKind): void {
  const known = sealClassKind(target)
  if (known === undefined) return
  if (known.seeded)
    throw new HeError('INVALID_INPUT', `cannot load into a ${known.className}; load into a ${kind} object`)
  if (known.kind !== kind) {
    throw new HeError('INVALID_INPUT', `cannot load a ${kind} into a ${known.className}`)
  }
}

/**
 * Verifies an envelope — checksum, kind, the context's params fingerprint, key set,
 * secret-key refusal, meta, SEAL header — then inflates a compressed payload within a
 * bound and pre-parses every count and size in it against the context
 * (`prepareSealPayload`), and only then loads it into `target` (owned by the caller)
 * with SEAL's `loadFromArray`. Returns the envelope (meta included). If SEAL still
 * refuses the payload (only a forged or buggy writer gets that far), the error is
 * INVALID_ENVELOPE, and `sealExceptionCount()` counts it.
 */
export function loadSealObject<K extends ContextObjectKind>(
  target: SealLoadTargets[K],
  context: SealLoadContext,
  source: EnvelopeSource,
  expect: LoadSealObjectExpect<K>,
  options: LoadSealObjectOptions = {},
): Envelope<K> {
  checkTarget(target, expect.kind)
  const envelope = verify(source, { ...expect, fingerprint: context.fingerprint })
  const verified = envelope as unknown as Envelope<ContextObjectKind>
  const only = envelope.kind === 'galoisKeys' ? options.onlyGaloisElements : undefined
  // Packed keys are unpacked for the elements asked for only, never the whole set.
  const unpacked = verified.compression === 'packed' ? unpackFor(context, verified, only) : verified
  const { payload: prepared } = prepareSealPayload(unpacked, payloadLimitsOf(context, options))
  const payload = only ? selectGaloisKeys(prepared, only) : prepared
  loadPayload(envelope.kind, () => target.loadFromArray(context.context, payload))
  return envelope
}

/**
 * A packed ciphertext or packed Galois keys rebuilt as SEAL's own uncompressed save, every
 * field checked against the context (then pre-parsed like any other payload).
 */
function unpackFor(
  context: SealLoadContext,
  envelope: Envelope<ContextObjectKind>,
  onlyGaloisElements?: readonly number[],
): Envelope<ContextObjectKind> {
  if (envelope.kind === 'galoisKeys') {
    if (!onlyGaloisElements) {
      const payload = unpackSealGaloisKeys(context, envelope.payload, envelope.seeded)
      return { ...envelope, compression: 'none', payload }
    }
    // Narrowed while unpacking: the elements the payload holds are checked against the
    // meta's list here, as prepareSealPayload checks a whole payload, and the list then
    // narrowed with it to the elements kept.
    const listed = [...((envelope.meta as { elements?: number[] }).elements ?? [])].sort((a, b) => a - b)
    const held = checkPackedGaloisKeysLayout(envelope.payload, 'INVALID_ENVELOPE').elements
    if (held.length !== listed.length || held.some((element, i) => element !== listed[i])) {
      throw new HeError(
        'INVALID_ENVELOPE',
        `the galoisKeys envelope lists Galois elements ${listed.join(', ') || '(none)'} but its payload holds ${held.join(', ')}`,
        { details: { listed, present: held } },
      )
    }
    const payload = unpackSealGaloisKeys(context, envelope.payload, envelope.seeded, onlyGaloisElements)
    const kept = listed.filter((element) => onlyGaloisElements.includes(element))
    return { ...envelope, compression: 'none', payload, meta: { ...envelope.meta, elements: kept } }
  }
  const packedContext = context as unknown as Partial<PackedCiphertextContext>
  if (packedContext.params?.scheme === undefined || packedContext.plainModulus === undefined) {
    throw new HeError('INVALID_INPUT', 'a packed ciphertext loads under an HeContext (its scheme and t are needed)')
  }
  const payload = unpackSealCiphertext(packedContext as PackedCiphertextContext, envelope.payload, envelope.seeded)
  return { ...envelope, compression: 'none', payload }
}

/**
 * Runs SEAL's load. The envelope checks passed, so a refusal here means a well-framed
 * envelope around a body SEAL cannot read (a forged or buggy writer; SEAL says e.g.
 * "cast failed", "stream decompression failed"): that is an invalid envelope, not a
 * SEAL malfunction. Out-of-memory keeps its own code.
 */
function loadPayload(kind: SealObjectKind, load: () => void): void {
  try {
    sealCall(`load ${kind}`, load)
  } catch (error) {
    // toHeError guesses a code from SEAL's words; for a load, every C++ refusal but OOM means the same
    // thing. JS-side binding errors (a deleted target) stay SEAL_ERROR: they are the caller's bug.
    const fromCpp = error instanceof HeError && error.cause instanceof SealException
    if (fromCpp && error.code !== 'OUT_OF_MEMORY') {
      // The SealException stays the cause (logs see SEAL's words; messages say ours).
      throw new HeError(
        'INVALID_ENVELOPE',
        `the ${kind} envelope passed its checks but SEAL could not load the ${kind}: its data is not valid for these parameters`,
        { cause: error.cause },
      )
    }
    throw error
  }
}

/**
 * Verifies a params envelope and loads it into `target` (EncryptionParameters take no
 * context). Pass `fingerprint` when the parameters must be a known set.
 */
export function loadSealParams(
  target: EncryptionParameters,
  source: EnvelopeSource,
  expect: Pick<EnvelopeExpect<'params'>, 'fingerprint'> = {},
): Envelope<'params'> {
  checkTarget(target, 'params')
  const envelope = verify(source, { ...expect, kind: 'params' })
  const limits = structuralPayloadLimits({ maxPolyModulusDegree: 32768, maxInflatedBytes: 1 << 16 })
  const { payload } = prepareSealPayload(envelope, limits)
  loadPayload('params', () => target.loadFromArray(payload))
  return envelope
}
