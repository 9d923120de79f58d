import { BenchError } from '../../BenchError.ts'
import { binaryOp, galoisOp, plainOp, relinOp, unaryOp } from './batchSchemeOps.ts'
import { cipherBytes, fixedOp, inPlaceOp, type OpFactory, opArena } from './PreparedOp.ts'

/** The CKKS rows, at sealbench's `safe_scale()`. */
export const CKKS_OPS: Record<string, OpFactory> = {
  'CKKS/EncryptSecret': ({ env }) => {
    const arena = opArena()
    const pt = env.randomPlain(arena)
    const ct = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => env.encryptor.encryptSymmetric(pt, ct))
  },
  'CKKS/EncryptPublic': ({ env }) => {
    const arena = opArena()
    const pt = env.randomPlain(arena)
    const ct = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => env.encryptor.encrypt(pt, ct))
  },
  'CKKS/Decrypt': ({ env }) => {
    const arena = opArena()
    const ct = env.randomCipher(arena)
    const pt = arena.track(new env.seal.Plaintext())
    return fixedOp(arena, () => env.decryptor.decrypt(ct, pt))
  },
  'CKKS/EncodeDouble': ({ env }) => {
    const arena = opArena()
    const encoder = env.ckksEncoder
    if (!encoder) throw new BenchError('INTERNAL', 'no CKKS encoder')
    const message = env.randomMessage()
    const pt = arena.track(new env.seal.Plaintext())
    return fixedOp(arena, () => encoder.encode(message, env.ckksScale, pt))
  },
  'CKKS/DecodeDouble': ({ env }) => {
    const arena = opArena()
    const encoder = env.ckksEncoder
    if (!encoder) throw new BenchError('INTERNAL', 'no CKKS encoder')
    const pt = env.randomPlain(arena)
    return fixedOp(arena, () => encoder.decodeFloat64(pt))
  },
  'CKKS/EvaluateAddCt': binaryOp((env, a, b, d) => env.evaluator.add(a, b, d)),
  'CKKS/EvaluateSubCt': binaryOp((env, a, b, d) => env.evaluator.sub(a, b, d)),
  'CKKS/EvaluateMulCt': binaryOp((env, a, b, d) => env.evaluator.multiply(a, b, d)),
  'CKKS/EvaluateAddPt': plainOp((env, a, p, d) => env.evaluator.addPlain(a, p, d)),
  'CKKS/EvaluateSubPt': plainOp((env, a, p, d) => env.evaluator.subPlain(a, p, d)),
  'CKKS/EvaluateMulPt': plainOp((env, a, p, d) => env.evaluator.multiplyPlain(a, p, d)),
  'CKKS/EvaluateSquare': unaryOp((env, a, d) => env.evaluator.square(a, d)),
  'CKKS/EvaluateNegate': unaryOp((env, a, d) => env.evaluator.negate(a, d)),
  'CKKS/EvaluateRescaleInplace': ({ env }) => {
    const arena = opArena()
    // sealbench rescales a ciphertext at safe_scale * 2^20.
    const template = env.randomCipher(arena, env.ckksScale * 2 ** 20)
    return inPlaceOp(arena, template, cipherBytes(env, 2, env.dataLevelPrimes), (ct) =>
      env.evaluator.rescaleToNextInplace(ct),
    )
  },
  'CKKS/EvaluateRelinInplace': relinOp,
  'CKKS/EvaluateRotate': galoisOp((env, a, keys, d) => env.evaluator.rotateVector(a, 1, keys, d)),
  'CKKS/EvaluateConjugate': galoisOp((env, a, keys, d) => env.evaluator.complexConjugate(a, keys, d)),
}
