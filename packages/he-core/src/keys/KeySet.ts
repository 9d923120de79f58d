import type { Decryptor, Encryptor, GaloisKeys, KeyGenerator, PublicKey, RelinKeys, SecretKey } from 'node-seal/throws'
import type { SealCompression } from '../envelope/envelopeKinds.ts'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { adopt, disown, type SealHandle } from '../scope/SealScope.ts'
import type { GaloisKeyChoice } from './GaloisKeyChoice.ts'
import { galoisElementOf, normalizeSteps, powerOfTwoSteps } from './galoisElements.ts'

/** Which evaluation keys to make next to the secret and public key. */
export interface KeySetOptions {
  /** Relinearization keys (needed after ciphertext × ciphertext). Default false. */
  relin?: boolean
  /**
   * Galois (rotation) keys: `'powerOfTwo'` (SEAL's default set, any step by composition),
   * explicit steps (0 = column swap / conjugation), or none (default).
   */
  galois?: GaloisKeyChoice
  /** Key-set id to use (e.g. when restoring a secret key); a random one otherwise. */
  id?: string
}

/** Milliseconds spent generating each key. */
export interface KeyTimings {
  secretKey: number
  publicKey: number
  relinKeys?: number
  galoisKeys?: number
}

/** The SEAL compression of serialized keys (the envelope's compression names). */
export type CompressionName = SealCompression

/** A random 128-bit key-set id (32 hex chars); it travels with every object made under the secret key. */
export function newKeySetId(): string {
  const bytes = new Uint8Array(16)
  crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * One secret key and the keys made from it. The secret key never leaves this
 * object except through an explicit export. Owns every SEAL object it holds
 * (keys, generator, encryptor, decryptor); `dispose()` deletes them all.
 */
export class KeySet implements Disposable {
  readonly ctx: HeContext
  readonly id: string
  readonly secretKey: SecretKey
  readonly publicKey: PublicKey
  readonly timings: KeyTimings
  readonly #generator: KeyGenerator
  readonly #owned: SealHandle[] = []
  #relinKeys: RelinKeys | undefined
  #galoisKeys: GaloisKeys | undefined
  #galoisSteps: number[] = []
  #encryptor: Encryptor | undefined
  #decryptor: Decryptor | undefined
  #disposed = false

  private constructor(ctx: HeContext, options: KeySetOptions, secretKey: SecretKey | undefined) {
    this.ctx = ctx
    this.id = options.id ?? newKeySetId()
    if (!/^[0-9a-f]{32}$/.test(this.id)) throw new HeError('INVALID_INPUT', 'key-set id must be 32 lowercase hex chars')
    const wantsKeySwitching = options.relin || (options.galois !== undefined && options.galois !== false)
    if (wantsKeySwitching) this.#assertKeySwitching()
    this.timings = { secretKey: 0, publicKey: 0 }
    try {
      let start = performance.now()
      this.#generator = this.#own(
        sealCall('key generator', () =>
          secretKey ? new ctx.seal.KeyGenerator(ctx.context, secretKey) : new ctx.seal.KeyGenerator(ctx.context),
        ),
      )
      this.secretKey = this.#own(this.#generator.secretKey())
      this.timings.secretKey = performance.now() - start
      start = performance.now()
      this.publicKey = this.#own(this.#generator.createPublicKey())
      this.timings.publicKey = performance.now() - start
      if (options.relin) this.addRelinKeys()
      if (options.galois) this.setGaloisKeys(options.galois)
    } catch (error) {
      this.dispose()
      throw error
    }
  }

  /** Relinearization keys, when made (needed after ciphertext × ciphertext). */
  get relinKeys(): RelinKeys | undefined {
    return this.#relinKeys
  }

  get galoisKeys(): GaloisKeys | undefined {
    return this.#galoisKeys
  }

  /** The rotation steps the Galois keys cover directly (empty without Galois keys). */
  get galoisSteps(): number[] {
    return [...this.#galoisSteps]
  }

  /** Makes relinearization keys from the same secret key (no-op when present). */
  addRelinKeys(): RelinKeys {
    this.#assertLive()
    this.#assertKeySwitching()
    if (!this.#relinKeys) {
      const start = performance.now()
      this.#relinKeys = this.#own(sealCall('relin keys', () => this.#generator.createRelinKeys()))
      this.timings.relinKeys = performance.now() - start
    }
    return this.#relinKeys
  }

  /**
   * (Re)makes the Galois keys for `galois` from the same secret key, replacing any
   * held before; the public and relinearization keys are kept.
   */
  setGaloisKeys(galois: Exclude<GaloisKeyChoice, false>): GaloisKeys {
    this.#assertLive()
    this.#assertKeySwitching()
    const n = this.ctx.params.polyModulusDegree
    const steps = galois === 'powerOfTwo' ? powerOfTwoSteps(n).sort((a, b) => a - b) : normalizeSteps(n, galois.steps)
    const start = performance.now()
    const keys = this.#own(
      sealCall('Galois keys', () =>
        galois === 'powerOfTwo'
          ? this.#generator.createGaloisKeys()
          : this.#generator.createGaloisKeysWithSteps(Int32Array.from(steps)),
      ),
    )
    this.timings.galoisKeys = performance.now() - start
    if (this.#galoisKeys) this.#free(this.#galoisKeys)
    this.#galoisKeys = keys
    this.#galoisSteps = steps
    return keys
  }

  #own<T extends SealHandle>(handle: T): T {
    this.#owned.push(adopt(handle))
    return handle
  }

  #free(handle: SealHandle): void {
    const index = this.#owned.indexOf(handle)
    if (index >= 0) this.#owned.splice(index, 1)
    disown(handle)
  }

  #assertKeySwitching(): void {
    if (!this.ctx.facts.keySwitching) {
      throw new HeError(
        'MISSING_KEY',
        `relinearization and Galois keys need key switching, which n=${this.ctx.params.polyModulusDegree} with a single prime cannot do`,
      )
    }
  }

  /** Generates a fresh secret key and the keys asked for. */
  static generate(ctx: HeContext, options: KeySetOptions = {}): KeySet {
    return new KeySet(ctx, options, undefined)
  }

  /** Rebuilds a key set around an existing secret key (fresh public/evaluation keys). The secret key is copied. */
  static fromSecretKey(ctx: HeContext, secretKey: SecretKey, options: KeySetOptions & { id: string }): KeySet {
    return new KeySet(ctx, options, secretKey)
  }

  /** Whether the Galois keys hold the element for `step` (0 = column swap / conjugation). */
  hasGaloisStep(step: number): boolean {
    if (!this.galoisKeys) return false
    return this.galoisKeys.hasKey(galoisElementOf(this.ctx.params.polyModulusDegree, step))
  }

  /** Encryptor with both keys (public-key and symmetric encryption), made once. */
  get encryptor(): Encryptor {
    this.#assertLive()
    if (!this.#encryptor) {
      this.#encryptor = new this.ctx.seal.Encryptor(this.ctx.context, this.publicKey, this.secretKey)
      this.#own(this.#encryptor)
    }
    return this.#encryptor
  }

  get decryptor(): Decryptor {
    this.#assertLive()
    if (!this.#decryptor) {
      this.#decryptor = new this.ctx.seal.Decryptor(this.ctx.context, this.secretKey)
      this.#own(this.#decryptor)
    }
    return this.#decryptor
  }

  /**
   * SEAL bytes of the evaluation keys in seeded form when `seeded` (half the size;
   * what clients upload). Seeded keys are generated afresh each call: they are
   * equivalent keys for the same secret key, not a copy of `relinKeys`.
   */
  serializeRelinKeys(compression: CompressionName, seeded: boolean): Uint8Array {
    this.#assertLive()
    if (!this.relinKeys) throw new HeError('MISSING_KEY', 'this key set has no relinearization keys')
    if (!seeded) return this.relinKeys.saveToArray(this.#mode(compression)) as Uint8Array
    const serializable = this.#generator.createRelinKeysSerializable()
    try {
      return serializable.saveToArray(this.#mode(compression)) as Uint8Array
    } finally {
      serializable.delete()
    }
  }

  serializeGaloisKeys(compression: CompressionName, seeded: boolean): Uint8Array {
    this.#assertLive()
    if (!this.galoisKeys) throw new HeError('MISSING_KEY', 'this key set has no Galois keys')
    if (!seeded) return this.galoisKeys.saveToArray(this.#mode(compression)) as Uint8Array
    const n = this.ctx.params.polyModulusDegree
    const steps = this.#galoisSteps
    const serializable =
      steps.length === powerOfTwoSteps(n).length && steps.every((s) => powerOfTwoSteps(n).includes(s))
        ? this.#generator.createGaloisKeysSerializable()
        : this.#generator.createGaloisKeysSerializableWithSteps(Int32Array.from(steps))
    try {
      return serializable.saveToArray(this.#mode(compression)) as Uint8Array
    } finally {
      serializable.delete()
    }
  }

  serializePublicKey(compression: CompressionName, seeded: boolean): Uint8Array {
    this.#assertLive()
    if (!seeded) return this.publicKey.saveToArray(this.#mode(compression)) as Uint8Array
    const serializable = this.#generator.createPublicKeySerializable()
    try {
      return serializable.saveToArray(this.#mode(compression)) as Uint8Array
    } finally {
      serializable.delete()
    }
  }

  /** The secret key's SEAL bytes: only for an explicit download by its owner. */
  serializeSecretKey(compression: CompressionName): Uint8Array {
    this.#assertLive()
    return this.secretKey.saveToArray(this.#mode(compression)) as Uint8Array
  }

  #mode(compression: CompressionName) {
    return this.ctx.seal.ComprModeType[compression]
  }

  #assertLive(): void {
    if (this.#disposed) throw new HeError('INVALID_INPUT', 'this key set was disposed')
  }

  get disposed(): boolean {
    return this.#disposed
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const handle of this.#owned.reverse()) disown(handle)
    this.#owned.length = 0
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
