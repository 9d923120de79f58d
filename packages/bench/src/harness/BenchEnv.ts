import { SealScope } from '@sealbox/he-core'
import type {
  BatchEncoder,
  Ciphertext,
  CKKSEncoder,
  Decryptor,
  Encryptor,
  Evaluator,
  GaloisKeys,
  KeyGenerator,
  MainModule,
  Plaintext,
  PublicKey,
  RelinKeys,
  SEALContext,
  SecretKey,
} from 'node-seal/throws'
import { BenchError } from '../BenchError.ts'
import type { Scheme } from '../protocol/benchProtocol.ts'
import { ckksSafeScaleBits, DEFAULT_COEFF_BITS, PLAIN_MODULUS_BITS, SEARCH_BENCH_PARAMS } from './benchParameters.ts'
import type { Random } from './Random.ts'

/** The node-seal module (the `throws` build, as the rest of sealbox uses). */
export type Seal = MainModule

/** A monotonic clock in milliseconds (`performance.now`). */
export type Clock = () => number

/**
 * Everything sealbench's `BMEnv` precomputes for one parameter set: the context (built
 * with `SecLevelType.none`, as sealbench does), keys, encoders, encryptor, decryptor,
 * evaluator. Galois keys cover step 1 and the column rotation only, like BMEnv's.
 * One owner: `dispose()` deletes every SEAL object it made.
 */
export class BenchEnv {
  readonly seal: Seal
  readonly n: number
  readonly scheme: Scheme
  readonly arena = new SealScope()
  readonly context: SEALContext
  readonly keygen: KeyGenerator
  readonly secretKey: SecretKey
  readonly publicKey: PublicKey
  readonly relinKeys: RelinKeys | undefined
  readonly galoisKeys: GaloisKeys | undefined
  readonly encryptor: Encryptor
  readonly decryptor: Decryptor
  readonly evaluator: Evaluator
  readonly batchEncoder: BatchEncoder | undefined
  readonly ckksEncoder: CKKSEncoder | undefined
  readonly logQ: number
  readonly coeffModulusBits: number[]
  /** Primes at the first data level (1 means no modulus chain). */
  readonly dataLevelPrimes: number
  readonly usingKeyswitching: boolean
  readonly plainModulus: bigint | undefined
  /** sealbench's `safe_scale()` for CKKS. */
  readonly ckksScale: number
  readonly contextMs: number
  readonly keysMs: number
  readonly #rng: Random

  constructor(seal: Seal, n: number, scheme: Scheme, rng: Random, now: Clock) {
    this.seal = seal
    this.n = n
    this.scheme = scheme
    this.#rng = rng
    const a = this.arena
    const search = scheme === 'bgv-search'
    if (search && n !== SEARCH_BENCH_PARAMS.n) {
      throw new BenchError('INTERNAL', `the search's parameters are n = ${SEARCH_BENCH_PARAMS.n} only (asked n = ${n})`)
    }
    try {
      const parms = a.track(new seal.EncryptionParameters(seal.SchemeType[search ? 'bgv' : scheme]))
      parms.setPolyModulusDegree(n)
      const coeff = a.track(
        search
          ? seal.CoeffModulus.Create(n, Int32Array.from(SEARCH_BENCH_PARAMS.coeffModulusBits))
          : seal.CoeffModulus.BFVDefault(n, seal.SecLevelType.tc128),
      )
      parms.setCoeffModulus(coeff)
      a.free(coeff)
      if (search) {
        const plain = a.track(new seal.Modulus(BigInt(SEARCH_BENCH_PARAMS.plainModulus)))
        parms.setPlainModulus(plain)
        this.plainModulus = plain.value()
        a.free(plain)
      } else if (scheme !== 'ckks') {
        const plain = a.track(seal.PlainModulus.Batching(n, PLAIN_MODULUS_BITS))
        parms.setPlainModulus(plain)
        this.plainModulus = plain.value()
        a.free(plain)
      }
      const t0 = now()
      // sealbench's BMEnv: expand the modulus chain, and SecLevelType.none ("DO NOT USE AS EXAMPLE").
      this.context = a.track(new seal.SEALContext(parms, true, seal.SecLevelType.none))
      this.contextMs = now() - t0
      if (!this.context.parametersSet())
        throw new BenchError('INTERNAL', `SEAL rejected the parameters for ${scheme} n=${n}`)
      a.free(parms)

      const keyData = a.track(this.context.keyContextData())
      this.logQ = keyData.totalCoeffModulusBitCount()
      const keyParms = a.track(keyData.parms())
      const primes = a.track(keyParms.coeffModulus())
      this.coeffModulusBits = []
      for (let i = 0; i < primes.size(); i++) {
        const prime = primes.get(i)
        if (prime) {
          this.coeffModulusBits.push(prime.bitCount())
          prime.delete()
        }
      }
      a.free(primes)
      a.free(keyParms)
      a.free(keyData)
      const expected = search ? SEARCH_BENCH_PARAMS.coeffModulusBits : DEFAULT_COEFF_BITS[n]
      if (!expected || expected.join() !== this.coeffModulusBits.join()) {
        throw new BenchError(
          'INTERNAL',
          `${search ? 'CoeffModulus.Create' : 'BFVDefault'}(${n}) gave [${this.coeffModulusBits}] bits, expected [${expected}]`,
        )
      }
      this.usingKeyswitching = this.context.usingKeyswitching()
      this.dataLevelPrimes = this.coeffModulusBits.length > 1 ? this.coeffModulusBits.length - 1 : 1
      this.ckksScale = 2 ** ckksSafeScaleBits(n)

      const t1 = now()
      this.keygen = a.track(new seal.KeyGenerator(this.context))
      this.secretKey = a.track(this.keygen.secretKey())
      this.publicKey = a.track(this.keygen.createPublicKey())
      if (this.usingKeyswitching) {
        this.relinKeys = a.track(this.keygen.createRelinKeys())
        // BMEnv: keys for step 1 and the column rotation (step 0 = Galois element 2n-1).
        this.galoisKeys = a.track(this.keygen.createGaloisKeysWithSteps(Int32Array.from([1, 0])))
      }
      this.keysMs = now() - t1
      this.encryptor = a.track(new seal.Encryptor(this.context, this.publicKey, this.secretKey))
      this.decryptor = a.track(new seal.Decryptor(this.context, this.secretKey))
      this.evaluator = a.track(new seal.Evaluator(this.context))
      if (scheme === 'ckks') this.ckksEncoder = a.track(new seal.CKKSEncoder(this.context))
      else this.batchEncoder = a.track(new seal.BatchEncoder(this.context))
    } catch (error) {
      this.arena.dispose()
      throw error
    }
  }

  /** Slots of the encoder: n for batching, n/2 for CKKS. */
  get slotCount(): number {
    return this.scheme === 'ckks' ? this.n / 2 : this.n
  }

  /** A random message the encoder accepts (uniform mod t, or uniform in [0, 1) for CKKS). */
  randomMessage(): BigUint64Array | Float64Array {
    if (this.scheme === 'ckks') return this.#rng.floats(this.slotCount)
    return this.#rng.uint64Below(this.slotCount, this.plainModulus ?? 2n)
  }

  /** Encodes `message` into a new plaintext owned by `arena` (CKKS at `scale`, default the safe scale). */
  encode(arena: SealScope, message: BigUint64Array | Float64Array, scale = this.ckksScale): Plaintext {
    const pt = arena.track(new this.seal.Plaintext())
    if (this.ckksEncoder) this.ckksEncoder.encode(message, scale, pt)
    else this.batchEncoder?.encode(message, pt)
    return pt
  }

  /** A plaintext of a random message, owned by `arena`. */
  randomPlain(arena: SealScope, scale = this.ckksScale): Plaintext {
    return this.encode(arena, this.randomMessage(), scale)
  }

  /** A public-key encryption of a random message, owned by `arena`. */
  randomCipher(arena: SealScope, scale = this.ckksScale): Ciphertext {
    const scratch = new SealScope()
    try {
      const ct = arena.track(new this.seal.Ciphertext())
      this.encryptor.encrypt(this.randomPlain(scratch, scale), ct)
      return ct
    } finally {
      scratch.dispose()
    }
  }

  /** Deletes every SEAL object of this environment. */
  dispose(): void {
    this.arena.dispose()
  }
}
