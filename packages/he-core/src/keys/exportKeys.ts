import type { SecretKey } from 'node-seal/throws'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeBundle } from '../envelope/decodeBundle.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import type { EnvelopeCompression, SealCompression } from '../envelope/envelopeKinds.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { packSealGaloisKeys } from '../envelope/packSealGaloisKeys.ts'
import { HeError } from '../errors/HeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { galoisElementOf } from './galoisElements.ts'
import { type KeySet, KeySet as KeySetClass, type KeySetOptions } from './KeySet.ts'

/** How to export keys: seeded halves evaluation keys (what clients upload); zstd saves 10–35%. */
export interface ExportKeyOptions {
  seeded?: boolean
  compression?: SealCompression
  label?: string
}

/**
 * How to export Galois keys: any SEAL compression, or `packed` (each residue in ⌈log2 q⌉
 * bits, ENVELOPE.md "Packed Galois keys": 170.3 KB for two seeded elements at n = 4096
 * [27, 28, 28], against ≈ 213 KB with zstd).
 */
export interface ExportGaloisKeyOptions extends Omit<ExportKeyOptions, 'compression'> {
  /** SEAL's `none`, `zlib` or `zstd`, or sealbox's `packed` (default `zstd`). */
  compression?: EnvelopeCompression
}

/** The secret key as an envelope, for an explicit download by its owner only. */
export function exportSecretKey(keys: KeySet, options: Omit<ExportKeyOptions, 'seeded'> = {}): Uint8Array {
  return encodeEnvelope({
    kind: 'secretKey',
    fingerprint: keys.ctx.fingerprint,
    keySetId: keys.id,
    payload: keys.serializeSecretKey(options.compression ?? 'zstd'),
    ...(options.label ? { meta: { label: options.label } } : {}),
  })
}

export function exportPublicKey(keys: KeySet, options: ExportKeyOptions = {}): Uint8Array {
  const seeded = options.seeded ?? false
  return encodeEnvelope({
    kind: 'publicKey',
    fingerprint: keys.ctx.fingerprint,
    keySetId: keys.id,
    seeded,
    payload: keys.serializePublicKey(options.compression ?? 'zstd', seeded),
    ...(options.label ? { meta: { label: options.label } } : {}),
  })
}

export function exportRelinKeys(keys: KeySet, options: ExportKeyOptions = {}): Uint8Array {
  const seeded = options.seeded ?? true
  return encodeEnvelope({
    kind: 'relinKeys',
    fingerprint: keys.ctx.fingerprint,
    keySetId: keys.id,
    seeded,
    payload: keys.serializeRelinKeys(options.compression ?? 'zstd', seeded),
    ...(options.label ? { meta: { label: options.label } } : {}),
  })
}

export function exportGaloisKeys(keys: KeySet, options: ExportGaloisKeyOptions = {}): Uint8Array {
  const seeded = options.seeded ?? true
  const n = keys.ctx.params.polyModulusDegree
  const compression = options.compression ?? 'zstd'
  // Packed: SEAL saves its 64-bit words, then each residue is cut to its prime's bits.
  const payload =
    compression === 'packed'
      ? packSealGaloisKeys(keys.ctx, keys.serializeGaloisKeys('none', seeded))
      : keys.serializeGaloisKeys(compression, seeded)
  return encodeEnvelope({
    kind: 'galoisKeys',
    fingerprint: keys.ctx.fingerprint,
    keySetId: keys.id,
    seeded,
    payload,
    meta: {
      steps: keys.galoisSteps,
      elements: [...new Set(keys.galoisSteps.map((step) => galoisElementOf(n, step)))],
      ...(options.label ? { label: options.label } : {}),
    },
  })
}

/**
 * Everything a server needs to compute for this key set, and nothing secret: a
 * bundle of the relinearization and Galois keys it has (seeded by default). `packed`
 * packs the Galois keys; relinearization keys then travel with zstd.
 */
export function exportEvaluationKeys(keys: KeySet, options: ExportGaloisKeyOptions = {}): Uint8Array {
  const items: Uint8Array[] = []
  const labels: string[] = []
  if (keys.relinKeys) {
    const { compression, ...rest } = options
    const relinCompression = compression === 'packed' ? 'zstd' : compression
    items.push(
      exportRelinKeys(keys, relinCompression === undefined ? rest : { ...rest, compression: relinCompression }),
    )
    labels.push('relinKeys')
  }
  if (keys.galoisKeys) {
    items.push(exportGaloisKeys(keys, options))
    labels.push('galoisKeys')
  }
  if (items.length === 0) {
    throw new HeError('MISSING_KEY', 'this key set has no evaluation keys (relinearization or Galois) to export')
  }
  return encodeBundle(items, { labels })
}

/**
 * Restores a key set from a downloaded secret-key envelope: the same secret key
 * and key-set id, with fresh public and evaluation keys as `options` asks.
 */
export function importSecretKey(ctx: HeContext, bytes: BytesLike, options: Omit<KeySetOptions, 'id'> = {}): KeySet {
  const secretKey: SecretKey = new ctx.seal.SecretKey()
  try {
    const envelope = loadSealObject(secretKey, ctx, bytes, { kind: 'secretKey' })
    if (!envelope.keySetId) throw new HeError('INVALID_ENVELOPE', 'the secret-key envelope carries no key-set id')
    return KeySetClass.fromSecretKey(ctx, secretKey, { ...options, id: envelope.keySetId })
  } finally {
    // KeyGenerator copies the secret key; this handle is ours alone.
    secretKey.delete()
  }
}

/** Checks an evaluation-key bundle (kinds, params, key set; no secret keys) without loading it into SEAL. */
export function inspectEvaluationKeys(ctx: HeContext, bytes: BytesLike, keySetId?: string) {
  return decodeBundle(bytes, {
    itemKind: ['relinKeys', 'galoisKeys'],
    fingerprint: ctx.fingerprint,
    refuseSecretKey: true,
    ...(keySetId ? { keySetId } : {}),
  })
}
