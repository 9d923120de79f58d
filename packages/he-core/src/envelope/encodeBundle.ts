import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'
import { decodeEnvelopeBytes, type Envelope } from './decodeEnvelope.ts'
import { encodeEnvelopeMeta } from './encodeEnvelope.ts'
import { DEFAULT_MAX_BUNDLE_COUNT } from './envelopeLayout.ts'
import { writeEnvelope } from './writeEnvelope.ts'

/** Options of `encodeBundle`: the bundle's meta, less the count it computes. */
export interface EncodeBundleOptions {
  /** A name for the whole bundle (e.g. "query", "evaluation keys"). */
  label?: string
  /** One name per item, in order (e.g. sandbox variable names). */
  labels?: readonly string[]
  /** Cap on the number of items (default `DEFAULT_MAX_BUNDLE_COUNT`, the decoder's default too). */
  maxCount?: number
}

/**
 * Packs several envelopes (bytes, or envelopes from `decodeEnvelope`) into one bundle
 * envelope — a query of g ciphertexts, relin and Galois keys uploaded together, a
 * whole sandbox workspace. Each item is verified first (a bad item throws the code
 * `decodeEnvelope` would); all must share one params
 * fingerprint and at most one key set, which become the bundle's. Bundles do not nest:
 * a workspace is a flat list, and one level keeps decoding bounded.
 */
export function encodeBundle(items: readonly (BytesLike | Envelope)[], options: EncodeBundleOptions = {}): Uint8Array {
  const maxCount = options.maxCount ?? DEFAULT_MAX_BUNDLE_COUNT
  if (items.length === 0) throw new HeError('INVALID_INPUT', 'a bundle needs at least one envelope')
  if (items.length > maxCount) {
    throw new HeError('LIMIT_EXCEEDED', `a bundle holds at most ${maxCount} envelopes, got ${items.length}`, {
      details: { limit: maxCount, found: items.length },
    })
  }
  const decoded = items.map((item, i) => {
    const bytes = isEnvelope(item) ? item.bytes : asPlainUint8Array(item)
    const what = `bundle item ${i}`
    const envelope = decodeEnvelopeBytes(bytes, {}, what)
    if (envelope.kind === 'bundle') throw new HeError('INVALID_INPUT', `${what} is a bundle; bundles do not nest`)
    return envelope
  })
  const first = decoded[0] as Envelope
  let keySetId: string | undefined
  for (const [i, envelope] of decoded.entries()) {
    if (envelope.fingerprint !== first.fingerprint) {
      throw new HeError(
        'PARAMS_MISMATCH',
        `bundle item ${i} has params fingerprint ${envelope.fingerprint}, item 0 has ${first.fingerprint}: a bundle holds objects of one parameter set`,
      )
    }
    if (envelope.keySetId === undefined) continue
    keySetId ??= envelope.keySetId
    if (envelope.keySetId !== keySetId) {
      throw new HeError(
        'KEY_SET_MISMATCH',
        `bundle item ${i} belongs to key set ${envelope.keySetId}, an earlier item to ${keySetId}: a bundle holds at most one key set`,
      )
    }
  }
  const meta = encodeEnvelopeMeta('bundle', {
    ...(options.label === undefined ? {} : { label: options.label }),
    count: decoded.length,
    ...(options.labels === undefined ? {} : { labels: [...options.labels] }),
  })
  return writeEnvelope({
    kind: 'bundle',
    seeded: false,
    compression: 'none',
    fingerprint: first.fingerprint,
    keySetId,
    meta,
    payload: decoded.map((envelope) => envelope.bytes),
  })
}

function isEnvelope(item: BytesLike | Envelope): item is Envelope {
  return typeof item === 'object' && item !== null && 'bytes' in item && 'kind' in item
}
