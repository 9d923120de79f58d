import type { ComprModeType } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import { sealSync } from '../seal/loadSeal.ts'
import { type EncodeEnvelopeInput, encodeEnvelope } from './encodeEnvelope.ts'
import type { EnvelopeCompression, SealObjectKind } from './envelopeKinds.ts'
import { sealClassKind } from './sealClassKinds.ts'

/** Any node-seal object that can be saved: keys, plaintexts, ciphertexts, params and their `Serializable*` forms. */
export interface SealSavable {
  saveToArray(mode: ComprModeType): unknown
}

/** Options of `saveSealObject`: the envelope fields, less the payload it produces. */
export type SaveSealObjectOptions<K extends SealObjectKind = SealObjectKind> = {
  [P in K]: Omit<Extract<EncodeEnvelopeInput, { kind: P }>, 'payload' | 'seeded'> & {
    /** SEAL compression: `zstd` for size, `none` for speed (zlib is ~5x slower than zstd for the same size). */
    compression: EnvelopeCompression
    /** Defaults to what the object's class says (`Serializable*` objects are seeded). */
    seeded?: boolean
  }
}[K]

/** SEAL's compression enum object for a name (enum arguments must be the objects, never numbers). */
export function sealCompressionMode(compression: EnvelopeCompression): ComprModeType {
  const modes = sealSync().ComprModeType
  switch (compression) {
    case 'none':
      return modes.none
    case 'zlib':
      return modes.zlib
    case 'zstd':
      return modes.zstd
    case 'packed':
      throw new HeError('INVALID_INPUT', 'packed is not a SEAL compression: save with none, then packSealCiphertext')
    default: {
      const never: never = compression
      throw new HeError('INVALID_INPUT', `unknown compression ${JSON.stringify(never)}`)
    }
  }
}

/**
 * Saves a SEAL object with `saveToArray` and wraps it in an envelope. The object's
 * class is checked against `kind` (RelinKeys are never saved as galoisKeys) and
 * decides `seeded`. The object stays owned by the caller.
 */
export function saveSealObject<K extends SealObjectKind>(
  object: SealSavable,
  options: SaveSealObjectOptions<K>,
): Uint8Array {
  const { kind, compression } = options as SaveSealObjectOptions
  const known = sealClassKind(object)
  if (known !== undefined && known.kind !== kind) {
    throw new HeError('INVALID_INPUT', `cannot save a ${known.className} as ${kind}: it is a ${known.kind}`)
  }
  if (known !== undefined && options.seeded !== undefined && options.seeded !== known.seeded) {
    throw new HeError(
      'INVALID_INPUT',
      `a ${known.className} is ${known.seeded ? '' : 'not '}seeded; drop the seeded option`,
    )
  }
  const seeded = options.seeded ?? known?.seeded ?? false
  const mode = sealCompressionMode(compression)
  const saved = sealCall(`save ${kind}`, () => object.saveToArray(mode))
  if (!(saved instanceof Uint8Array)) throw new HeError('SEAL_ERROR', `save ${kind}: saveToArray returned no bytes`)
  const { compression: _compression, ...fields } = options as SaveSealObjectOptions
  return encodeEnvelope({ ...fields, seeded, payload: saved } as EncodeEnvelopeInput)
}
