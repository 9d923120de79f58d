import {
  exportGaloisKeys,
  exportPublicKey,
  exportRelinKeys,
  exportSecretKey,
  type HeContext,
  HeError,
  importSecretKey,
  type KeyKind,
  KeySet,
  withScope,
} from '@sealbox/he-core'
import { decodeEnvelope, loadSealObject, saveSealObject } from '@sealbox/he-core/envelope'
import { KEY_NOUNS } from '../../workspace/keyNouns.ts'
import type { KeyReport, RequestOf } from '../protocol.ts'
import type { WorkerSession } from '../WorkerSession.ts'

/** Reports progress between SEAL calls (SEAL calls themselves cannot report). */
export type Progress = (label: string, done: number, total: number) => void

/**
 * Keys larger than this stay in the worker only: copying hundreds of MB to the page
 * and into IndexedDB (Galois keys at n ≥ 16384) would cost more than regenerating.
 */
export const KEEP_ENVELOPE_LIMIT = 64 * 2 ** 20

/** Keys made or loaded, and the ciphertexts dropped because their secret key was replaced. */
export interface KeysOutcome {
  keySetId: string
  keys: KeyReport[]
  dropped?: string[]
}

/** Estimated serialized size (describeParams), to decide before serializing whether to keep a key. */
function estimatedBytes(ctx: HeContext, kind: KeyKind, seeded: boolean, steps: readonly number[]): number {
  const sizes = ctx.facts.sizes
  switch (kind) {
    case 'secretKey':
      return sizes.secretKey
    case 'publicKey':
      return seeded ? sizes.publicKeySeeded : sizes.publicKey
    case 'relinKeys':
      return seeded ? sizes.relinKeysSeeded : sizes.relinKeys
    case 'galoisKeys':
      return (sizes.galoisKeyPerStep * steps.length) / (seeded ? 2 : 1)
    default: {
      const never: never = kind
      throw new HeError('INVALID_INPUT', `unknown key kind ${String(never)}`)
    }
  }
}

/**
 * Serializes one key into an he-core envelope: the key set's own keys through
 * he-core's exporters, evaluation keys loaded from a file as they were loaded.
 */
export function exportKey(session: WorkerSession, kind: KeyKind, seeded: boolean): Uint8Array {
  const ctx = session.context
  const keySet = session.requireKeySet('Exporting keys')
  const options = { seeded, compression: 'zstd' } as const
  const loaded = { fingerprint: ctx.fingerprint, keySetId: keySet.id, compression: 'zstd' } as const
  switch (kind) {
    case 'secretKey':
      return exportSecretKey(keySet, { compression: 'zstd' })
    case 'publicKey':
      return exportPublicKey(keySet, options)
    case 'relinKeys': {
      if (keySet.relinKeys && session.relinKeys === keySet.relinKeys) return exportRelinKeys(keySet, options)
      const keys = session.relinKeys
      if (!keys) throw new HeError('MISSING_KEY', 'There are no relinearization keys to export.')
      return saveSealObject(keys, { kind: 'relinKeys', ...loaded })
    }
    case 'galoisKeys': {
      if (keySet.galoisKeys && session.galoisKeys === keySet.galoisKeys) return exportGaloisKeys(keySet, options)
      throw new HeError('MISSING_KEY', 'Uploaded Galois keys are kept as uploaded; download the original file instead.')
    }
    default: {
      const never: never = kind
      throw new HeError('INVALID_INPUT', `unknown key kind ${String(never)}`)
    }
  }
}

function report(
  session: WorkerSession,
  kind: KeyKind,
  seeded: boolean,
  ms: number | undefined,
  steps: readonly number[] = [],
): KeyReport {
  const ctx = session.context
  const keepSeeded = kind === 'secretKey' ? false : seeded
  const estimate = estimatedBytes(ctx, kind, keepSeeded, steps)
  const base = {
    kind,
    seeded: keepSeeded,
    ...(ms === undefined ? {} : { ms }),
    ...(kind === 'galoisKeys' ? { steps: [...steps] } : {}),
  }
  if (estimate > KEEP_ENVELOPE_LIMIT) return { ...base, bytes: estimate }
  const envelope = exportKey(session, kind, keepSeeded)
  return { ...base, envelope, bytes: envelope.byteLength }
}

/**
 * Generates keys with he-core's KeySet: a fresh secret key (dropping ciphertexts of
 * the old one, which it could no longer decrypt), or new evaluation keys for the
 * current secret key. Each key comes back as an envelope with its time and size.
 */
export function generateKeys(
  session: WorkerSession,
  request: RequestOf<'generateKeys'>,
  progress: Progress,
): KeysOutcome {
  const ctx = session.context
  const current = session.keySet
  const fresh = request.freshSecretKey || !current
  const galois = request.galois
  const kinds: KeyKind[] = ['secretKey', 'publicKey']
  if (request.relin) kinds.push('relinKeys')
  if (galois) kinds.push('galoisKeys')
  const total = kinds.length + 1
  progress(`generating ${kinds.length} keys`, 0, total)
  const options = { relin: request.relin, galois } as const
  const keySet =
    fresh || !current
      ? KeySet.generate(ctx, options)
      : KeySet.fromSecretKey(ctx, current.secretKey, { ...options, id: current.id })
  const dropped = fresh ? session.dropValuesOfKind('ciphertext') : []
  session.setKeySet(keySet)
  const timings = keySet.timings
  const keys: KeyReport[] = []
  for (const [index, kind] of kinds.entries()) {
    // The status bar shows this: the key as the Keys panel names it.
    progress(`serializing the ${KEY_NOUNS[kind]}`, index + 1, total)
    const ms = timings[kind]
    keys.push(
      report(session, kind, request.seeded, kind === 'secretKey' && !fresh ? undefined : ms, keySet.galoisSteps),
    )
  }
  return { keySetId: keySet.id, keys, dropped }
}

/**
 * The key set to use after uploading a secret key. The secret key already in use
 * (downloaded and uploaded again) keeps the current key set, and with it the
 * relinearization and Galois keys made from it: a key set rebuilt from the file would
 * hold only the secret and public keys while the Keys panel still showed the others.
 * A file claiming the current key set's id with another secret key is refused: its
 * evaluation keys could not work, and the id says they would.
 */
function keepCurrentKeySet(session: WorkerSession, imported: KeySet): KeySet {
  const current = session.keySet
  if (!current || current.id !== imported.id) return imported
  const mode = session.context.seal.ComprModeType.none
  const a = current.secretKey.saveToArray(mode) as Uint8Array
  const b = imported.secretKey.saveToArray(mode) as Uint8Array
  const same = a.length === b.length && a.every((byte, i) => byte === b[i])
  imported.dispose()
  if (!same) {
    throw new HeError(
      'INVALID_ENVELOPE',
      `This file claims key set ${current.id} but holds another secret key; upload the secret key downloaded from that key set.`,
    )
  }
  return current
}

/**
 * Loads a key file. The envelope is checked before SEAL sees it: kind, parameters,
 * and (for anything but a secret key) that it belongs to the current secret key.
 * A secret key replaces the key set (a fresh public key is made from it).
 */
export function loadKey(session: WorkerSession, request: RequestOf<'loadKey'>): KeysOutcome {
  const ctx = session.context
  const { kind } = request
  if (kind === 'secretKey') {
    const imported = importSecretKey(ctx, request.envelope)
    const keySet = keepCurrentKeySet(session, imported)
    const keySetId = keySet.id
    const dropped = session.keySet?.id !== keySetId ? session.dropValuesOfKind('ciphertext') : []
    session.setKeySet(keySet)
    return {
      keySetId,
      dropped,
      keys: [
        { kind: 'secretKey', envelope: request.envelope, bytes: request.envelope.byteLength, seeded: false },
        report(session, 'publicKey', false, keySet.timings.publicKey),
      ],
    }
  }
  const keySet = session.requireKeySet('Uploading a public or evaluation key')
  const expect = { kind, fingerprint: ctx.fingerprint, keySetId: keySet.id } as const
  const envelope = decodeEnvelope(request.envelope, expect)
  const base = { kind, envelope: request.envelope, bytes: request.envelope.byteLength, seeded: envelope.seeded }
  switch (kind) {
    case 'publicKey': {
      // Loading proves the file is sound; the key set's own public key (equivalent) stays in use.
      withScope((scope) => loadSealObject(scope.track(new ctx.seal.PublicKey()), ctx, envelope, { kind }))
      return { keySetId: keySet.id, keys: [base] }
    }
    case 'relinKeys': {
      const keys = new ctx.seal.RelinKeys()
      try {
        loadSealObject(keys, ctx, envelope, { kind })
      } catch (error) {
        keys.delete()
        throw error
      }
      session.setRelinKeys(keys, true)
      return { keySetId: keySet.id, keys: [base] }
    }
    case 'galoisKeys': {
      const keys = new ctx.seal.GaloisKeys()
      try {
        loadSealObject(keys, ctx, envelope, { kind })
      } catch (error) {
        keys.delete()
        throw error
      }
      session.setGaloisKeys(keys, true)
      const steps = 'meta' in envelope && envelope.kind === 'galoisKeys' ? envelope.meta.steps : undefined
      return { keySetId: keySet.id, keys: [{ ...base, ...(steps ? { steps } : {}) }] }
    }
    default: {
      const never: never = kind
      throw new HeError('INVALID_INPUT', `unknown key kind ${String(never)}`)
    }
  }
}
