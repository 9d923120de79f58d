import type { Ciphertext, Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { CompressionName, KeySet } from '../keys/KeySet.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'

/** Public-key encryption into a ciphertext owned by `scope`. */
export function encrypt(keys: KeySet, plaintext: Plaintext, scope: SealScope): Ciphertext {
  const ciphertext = scope.track(new keys.ctx.seal.Ciphertext())
  sealCall('encrypt', () => keys.encryptor.encrypt(plaintext, ciphertext))
  return ciphertext
}

/** Symmetric (secret-key) encryption: a little less noise than public-key encryption. */
export function encryptSymmetric(keys: KeySet, plaintext: Plaintext, scope: SealScope): Ciphertext {
  const ciphertext = scope.track(new keys.ctx.seal.Ciphertext())
  sealCall('encrypt (symmetric)', () => keys.encryptor.encryptSymmetric(plaintext, ciphertext))
  return ciphertext
}

/**
 * Seeded symmetric encryption straight to SEAL bytes: half the size of a normal
 * ciphertext, because one polynomial is replaced by the seed that regenerates it.
 * Seeded ciphertexts cannot be computed on until loaded back (the server does that).
 */
export function encryptSymmetricSeeded(keys: KeySet, plaintext: Plaintext, compression: CompressionName): Uint8Array {
  const serializable = sealCall('encrypt (seeded)', () => keys.encryptor.encryptSymmetricSerializable(plaintext))
  try {
    return serializable.saveToArray(keys.ctx.seal.ComprModeType[compression]) as Uint8Array
  } finally {
    serializable.delete()
  }
}

/** Decrypts into a plaintext owned by `scope`. */
export function decrypt(keys: KeySet, ciphertext: Ciphertext, scope: SealScope): Plaintext {
  const plaintext = scope.track(new keys.ctx.seal.Plaintext())
  sealCall('decrypt', () => keys.decryptor.decrypt(ciphertext, plaintext))
  return plaintext
}

/**
 * Bits of noise budget left (BFV/BGV). At 0 decryption returns garbage without
 * any error, so callers should check this before trusting a result.
 */
export function noiseBudget(keys: KeySet, ciphertext: Ciphertext): number {
  if (keys.ctx.scheme === 'ckks') throw new HeError('SCHEME_MISMATCH', 'CKKS has no noise budget; watch the scale')
  return sealCall('noise budget', () => keys.decryptor.invariantNoiseBudget(ciphertext))
}

/** What the sandbox shows about a ciphertext. */
export interface CiphertextInfo {
  /** Chain index: the top level when fresh, 0 at the last level. */
  level: number
  /** Number of polynomials (2 fresh, 3 after a multiplication before relinearization). */
  size: number
  /** CKKS: log2 of the scale. */
  scaleBits?: number
  /** BFV/BGV: bits of noise budget left, when the secret key is at hand. */
  noiseBudget?: number
  isNttForm: boolean
}

/** Level, size, scale and (with keys) noise budget of a ciphertext. */
export function describeCiphertext(ctx: HeContext, ciphertext: Ciphertext, keys?: KeySet): CiphertextInfo {
  const info: CiphertextInfo = {
    level: ctx.levelOf(ciphertext),
    size: ciphertext.size(),
    isNttForm: ciphertext.isNttForm(),
  }
  if (ctx.scheme === 'ckks') info.scaleBits = Math.log2(ciphertext.scale())
  else if (keys) info.noiseBudget = noiseBudget(keys, ciphertext)
  return info
}
