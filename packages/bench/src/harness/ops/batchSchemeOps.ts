import { BenchError } from '../../BenchError.ts'
import type { BenchEnv } from '../BenchEnv.ts'
import { cipherBytes, fixedOp, inPlaceOp, type OpFactory, opArena } from './PreparedOp.ts'

function requireKeys(env: BenchEnv) {
  if (!env.relinKeys || !env.galoisKeys) throw new BenchError('INTERNAL', `n=${env.n} has no keyswitching keys`)
  return { relinKeys: env.relinKeys, galoisKeys: env.galoisKeys }
}

function requireBatchEncoder(env: BenchEnv) {
  if (!env.batchEncoder) throw new BenchError('INTERNAL', `${env.scheme} has no batch encoder`)
  return env.batchEncoder
}

/**
 * The BFV rows (and the same rows for BGV). Inputs are real encryptions of random
 * messages made before timing; sealbench fills ciphertexts with uniform random
 * coefficients instead, which costs the same to process.
 */
function batchSchemeOps(group: 'BFV' | 'BGV'): Record<string, OpFactory> {
  return {
    [`${group}/EncryptSecret`]: ({ env }) => {
      const arena = opArena()
      const pt = env.randomPlain(arena)
      const ct = arena.track(new env.seal.Ciphertext())
      return fixedOp(arena, () => env.encryptor.encryptSymmetric(pt, ct))
    },
    [`${group}/EncryptPublic`]: ({ env }) => {
      const arena = opArena()
      const pt = env.randomPlain(arena)
      const ct = arena.track(new env.seal.Ciphertext())
      return fixedOp(arena, () => env.encryptor.encrypt(pt, ct))
    },
    [`${group}/Decrypt`]: ({ env }) => {
      const arena = opArena()
      const ct = env.randomCipher(arena)
      const pt = arena.track(new env.seal.Plaintext())
      return fixedOp(arena, () => env.decryptor.decrypt(ct, pt))
    },
    [`${group}/EncodeBatch`]: ({ env }) => {
      const arena = opArena()
      const encoder = requireBatchEncoder(env)
      const message = env.randomMessage()
      const pt = arena.track(new env.seal.Plaintext())
      return fixedOp(arena, () => encoder.encode(message, pt))
    },
    [`${group}/DecodeBatch`]: ({ env }) => {
      const arena = opArena()
      const encoder = requireBatchEncoder(env)
      const pt = env.randomPlain(arena)
      return fixedOp(arena, () => encoder.decodeBigUint64(pt))
    },
    [`${group}/EvaluateAddCt`]: binaryOp((env, a, b, d) => env.evaluator.add(a, b, d)),
    [`${group}/EvaluateSubCt`]: binaryOp((env, a, b, d) => env.evaluator.sub(a, b, d)),
    [`${group}/EvaluateMulCt`]: binaryOp((env, a, b, d) => env.evaluator.multiply(a, b, d)),
    [`${group}/EvaluateAddPt`]: plainOp((env, a, p, d) => env.evaluator.addPlain(a, p, d)),
    [`${group}/EvaluateSubPt`]: plainOp((env, a, p, d) => env.evaluator.subPlain(a, p, d)),
    [`${group}/EvaluateMulPt`]: plainOp((env, a, p, d) => env.evaluator.multiplyPlain(a, p, d)),
    [`${group}/EvaluateSquare`]: unaryOp((env, a, d) => env.evaluator.square(a, d)),
    [`${group}/EvaluateNegate`]: unaryOp((env, a, d) => env.evaluator.negate(a, d)),
    [`${group}/EvaluateModSwitchInplace`]: ({ env }) => {
      const arena = opArena()
      const template = env.randomCipher(arena)
      return inPlaceOp(arena, template, cipherBytes(env, 2, env.dataLevelPrimes), (ct) =>
        env.evaluator.cipherModSwitchToNextInplace(ct),
      )
    },
    [`${group}/EvaluateRelinInplace`]: relinOp,
    [`${group}/EvaluateRotateRows`]: galoisOp((env, a, keys, d) => env.evaluator.rotateRows(a, 1, keys, d)),
    [`${group}/EvaluateRotateCols`]: galoisOp((env, a, keys, d) => env.evaluator.rotateColumns(a, keys, d)),
  }
}

type Ct = ReturnType<BenchEnv['randomCipher']>
type Pt = ReturnType<BenchEnv['randomPlain']>

/** `op(a, b, dest)` on two random ciphertexts. */
export function binaryOp(op: (env: BenchEnv, a: Ct, b: Ct, dest: Ct) => void): OpFactory {
  return ({ env }) => {
    const arena = opArena()
    const a = env.randomCipher(arena)
    const b = env.randomCipher(arena)
    const dest = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => op(env, a, b, dest))
  }
}

/** `op(a, plain, dest)` on a random ciphertext and a random plaintext. */
export function plainOp(op: (env: BenchEnv, a: Ct, p: Pt, dest: Ct) => void): OpFactory {
  return ({ env }) => {
    const arena = opArena()
    const a = env.randomCipher(arena)
    const p = env.randomPlain(arena)
    const dest = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => op(env, a, p, dest))
  }
}

/** `op(a, dest)` on a random ciphertext. */
export function unaryOp(op: (env: BenchEnv, a: Ct, dest: Ct) => void): OpFactory {
  return ({ env }) => {
    const arena = opArena()
    const a = env.randomCipher(arena)
    const dest = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => op(env, a, dest))
  }
}

type Keys = NonNullable<BenchEnv['galoisKeys']>

/** `op(a, galoisKeys, dest)` on a random ciphertext; the keys are looked up before timing. */
export function galoisOp(op: (env: BenchEnv, a: Ct, keys: Keys, dest: Ct) => void): OpFactory {
  return ({ env }) => {
    const { galoisKeys } = requireKeys(env)
    const arena = opArena()
    const a = env.randomCipher(arena)
    const dest = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => op(env, a, galoisKeys, dest))
  }
}

/** relinearizeInplace on a fresh copy of a size-3 product per call. */
export const relinOp: OpFactory = ({ env }) => {
  const { relinKeys } = requireKeys(env)
  const arena = opArena()
  const a = env.randomCipher(arena)
  const b = env.randomCipher(arena)
  const product = arena.track(new env.seal.Ciphertext())
  env.evaluator.multiply(a, b, product)
  return inPlaceOp(arena, product, cipherBytes(env, 3, env.dataLevelPrimes), (ct) =>
    env.evaluator.relinearizeInplace(ct, relinKeys),
  )
}

export const BFV_OPS = batchSchemeOps('BFV')
export const BGV_OPS = batchSchemeOps('BGV')
