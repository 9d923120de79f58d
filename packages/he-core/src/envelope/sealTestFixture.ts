import type {
  BatchEncoder,
  Ciphertext,
  Decryptor,
  Encryptor,
  Evaluator,
  GaloisKeys,
  KeyGenerator,
  Plaintext,
  PublicKey,
  RelinKeys,
  SecretKey,
} from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'

/** One secret key's worth of real SEAL objects for envelope tests, all owned by `scope`. */
export interface SealTestFixture {
  ctx: HeContext
  keySetId: string
  keygen: KeyGenerator
  secretKey: SecretKey
  publicKey: PublicKey
  relinKeys: RelinKeys
  galoisKeys: GaloisKeys
  galoisSteps: number[]
  galoisElements: number[]
  encoder: BatchEncoder
  encryptor: Encryptor
  decryptor: Decryptor
  evaluator: Evaluator
  /** Slot values 0..n−1 mapped into ±500, the plain-integer oracle. */
  values: BigInt64Array
  plaintext: Plaintext
  ciphertext: Ciphertext
}

/**
 * Builds keys (Galois keys for steps ±1 only, to stay small), a batch-encoded
 * plaintext and its encryption under `ctx` (BFV/BGV). Tests dispose `scope`.
 */
export function makeSealTestFixture(ctx: HeContext, scope: SealScope, keySetId: string): SealTestFixture {
  const seal = ctx.seal
  const encoder = ctx.batchEncoder
  if (!encoder) throw new HeError('INVALID_PARAMS', 'the envelope test fixture needs a BFV or BGV context')
  const n = ctx.params.polyModulusDegree
  const keygen = scope.track(new seal.KeyGenerator(ctx.context))
  const secretKey = scope.track(keygen.secretKey())
  const publicKey = scope.track(keygen.createPublicKey())
  const relinKeys = scope.track(keygen.createRelinKeys())
  const galoisSteps = [1, -1]
  const galoisKeys = scope.track(keygen.createGaloisKeysWithSteps(Int32Array.from(galoisSteps)))
  const encryptor = scope.track(new seal.Encryptor(ctx.context, publicKey, secretKey))
  const decryptor = scope.track(new seal.Decryptor(ctx.context, secretKey))
  const values = BigInt64Array.from({ length: encoder.slotCount() }, (_, i) => BigInt((i % 1001) - 500))
  const plaintext = scope.track(new seal.Plaintext())
  encoder.encode(values, plaintext)
  const ciphertext = scope.track(new seal.Ciphertext())
  encryptor.encrypt(plaintext, ciphertext)
  return {
    ctx,
    keySetId,
    keygen,
    secretKey,
    publicKey,
    relinKeys,
    galoisKeys,
    galoisSteps,
    galoisElements: galoisSteps.map((step) => galoisElementOf(n, step)),
    encoder,
    encryptor,
    decryptor,
    evaluator: ctx.evaluator,
    values,
    plaintext,
    ciphertext,
  }
}

/** Decrypts and decodes `ciphertext` to signed slot values. */
export function decryptValues(fixture: SealTestFixture, ciphertext: Ciphertext, scope: SealScope): BigInt64Array {
  const plain = scope.track(new fixture.ctx.seal.Plaintext())
  fixture.decryptor.decrypt(ciphertext, plain)
  const decoded = fixture.encoder.decodeBigInt64(plain) as BigInt64Array
  scope.free(plain)
  return decoded
}
