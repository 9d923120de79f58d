import type { Ciphertext, Plaintext } from 'node-seal/throws'
import { decodeBatch, encodeBatch } from '../codecs/batchCodec.ts'
import { decodeCkks, encodeCkks } from '../codecs/ckksCodec.ts'
import { decrypt, encrypt } from '../crypto/encrypt.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { ParamsInput, SchemeName } from '../params/ParamsSpec.ts'
import type { SealScope } from '../scope/SealScope.ts'

/**
 * Test parameters: small, but with room for a multiplication and a sum of all
 * slots. BGV at n=4096 has too little noise budget for an inner product.
 */
export const TEST_PARAMS: Record<SchemeName, ParamsInput> = {
  bfv: { scheme: 'bfv', polyModulusDegree: 4096 },
  bgv: { scheme: 'bgv', polyModulusDegree: 8192 },
  ckks: { scheme: 'ckks', polyModulusDegree: 8192 },
}

/** A context with a full key set (relin + power-of-two Galois keys), shared by a test file. */
export interface ProgramFixture {
  ctx: HeContext
  keys: KeySet
  scheme: SchemeName
}

export async function programFixture(scheme: SchemeName, params = TEST_PARAMS[scheme]): Promise<ProgramFixture> {
  const ctx = await getHeContext(params)
  const keys = KeySet.generate(ctx, { relin: true, galois: 'powerOfTwo' })
  return { ctx, keys, scheme }
}

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32
  }
}

/** Values for one input: integers in ±bound (BFV/BGV) or floats in ±bound (CKKS). */
export function randomValues(scheme: SchemeName, count: number, random: () => number, bound: number): number[] {
  return Array.from({ length: count }, () => {
    const x = (random() * 2 - 1) * bound
    return scheme === 'ckks' ? x : Math.round(x)
  })
}

export function encodeValues(f: ProgramFixture, values: readonly number[], scope: SealScope): Plaintext {
  return f.scheme === 'ckks' ? encodeCkks(f.ctx, values, scope) : encodeBatch(f.ctx, values, scope)
}

export function encryptValues(f: ProgramFixture, values: readonly number[], scope: SealScope): Ciphertext {
  return encrypt(f.keys, encodeValues(f, values, scope), scope)
}

/** Decrypts (or just decodes) a program output. */
export function readValues(f: ProgramFixture, value: Ciphertext | Plaintext, scope: SealScope): Array<number | bigint> {
  const plain = value instanceof f.ctx.seal.Ciphertext ? decrypt(f.keys, value, scope) : (value as Plaintext)
  return f.scheme === 'ckks' ? decodeCkks(f.ctx, plain) : decodeBatch(f.ctx, plain)
}

/** Largest absolute difference between two slot vectors (CKKS). */
export function maxError(actual: ReadonlyArray<number | bigint>, expected: ReadonlyArray<number | bigint>): number {
  let max = 0
  for (let i = 0; i < expected.length; i++) max = Math.max(max, Math.abs(Number(actual[i]) - Number(expected[i])))
  return max
}
