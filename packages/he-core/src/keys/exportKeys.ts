import type { SecretKey } from 'node-seal/throws'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeBundle } from '../envelope/decodeBundle.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import type { SealCompression } from '../envelope/envelopeKinds.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
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

export function exportGaloisKeys(keys: KeySet, options: ExportKeyOptions = {}): Uint8Array {
  const seeded = options.seeded ?? true
  const n = keys.ctx.params.polyModulusDegree
  return encodeEnvelope({
    kind: 'galoisKeys',
    fingerprint: keys.ctx.fingerprint,
    keySetId: keys.id,
    seeded,
    payload: keys.serializeGaloisKeys(options.compression ?? 'zstd', seeded),
    meta: {
      steps: keys.galoisSteps,
      elements: [...new Set(keys.galoisSteps.map((step) => galoisElementOf(n, step)))],
      ...(options.label ? { label: options.label } : {}),
    },
  })
}

/**
 * Everything a server needs to compute for this key set, and nothing secret: a
 * bundle of the relinearization and Galois keys it has (seeded by default).
 */
export function exportEvaluationKeys(keys: KeySet, options: ExportKeyOptions = {}): Uint8Array {
  const items: Uint8Array[] = []
  const labels: string[] = []
  if (keys.relinKeys) {
    items.push(exportRelinKeys(keys, options))
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
