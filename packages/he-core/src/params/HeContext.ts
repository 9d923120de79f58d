import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { BatchEncoder, CKKSEncoder, EncryptionParameters, Evaluator, SEALContext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import { adopt, disown, type SealHandle, withScope } from '../scope/SealScope.ts'
import type { Seal } from '../seal/loadSeal.ts'
import { describeParams, type ParamsFacts } from './describeParams.ts'
import type { HasParmsId } from './HasParmsId.ts'
import { chainLevelOf } from './levelTable.ts'
import type { ResolvedParams, SchemeName } from './ParamsSpec.ts'

/**
 * A built SEAL context for one parameter set, with the long-lived helpers every
 * operation needs (encoder, evaluator). It owns all of them; only its cache
 * disposes it. Building one costs 0.1 s (n=4096) to 20 s (n=32768).
 */
export class HeContext {
  readonly seal: Seal
  readonly params: ResolvedParams
  readonly facts: ParamsFacts
  /** 32 hex chars: SHA-256 of SEAL's serialized parameters and the security level. */
  readonly fingerprint: string
  readonly parms: EncryptionParameters
  readonly context: SEALContext
  readonly evaluator: Evaluator
  readonly batchEncoder: BatchEncoder | undefined
  readonly ckksEncoder: CKKSEncoder | undefined
  /** The BFV/BGV plain modulus t (what SEAL picked for `batchingBits`). */
  readonly plainModulus: bigint | undefined
  /** The primes of the coefficient modulus, special prime last. */
  readonly coeffPrimes: bigint[]
  readonly #owned: SealHandle[] = []
  #disposed = false

  constructor(seal: Seal, params: ResolvedParams) {
    this.seal = seal
    this.params = params
    this.facts = describeParams(params)
    const own = <T extends SealHandle>(handle: T): T => {
      this.#owned.push(adopt(handle))
      return handle
    }
    try {
      this.parms = own(new seal.EncryptionParameters(schemeType(seal, params.scheme)))
      const n = params.polyModulusDegree
      this.parms.setPolyModulusDegree(n)
      const primes = sealCall('coeffModulus', () =>
        seal.CoeffModulus.Create(n, Int32Array.from(params.coeffModulusBits)),
      )
      this.coeffPrimes = seal.jsArrayFromVecModulus(primes).map(BigInt)
      this.parms.setCoeffModulus(primes)
      primes.delete()
      if (params.plainModulus !== undefined) {
        const spec = params.plainModulus
        const t = sealCall('plainModulus', () =>
          'batchingBits' in spec
            ? seal.PlainModulus.Batching(n, spec.batchingBits)
            : new seal.Modulus(BigInt(spec.value)),
        )
        this.plainModulus = BigInt(t.value())
        this.parms.setPlainModulus(t)
        t.delete()
      }
      this.context = own(
        sealCall('context', () => new seal.SEALContext(this.parms, true, securityLevel(seal, params.security))),
      )
      if (!this.context.parametersSet()) {
        // parseParams mirrors SEAL's rules, so this is a rule we do not know yet.
        throw new HeError('INVALID_PARAMS', 'SEAL rejected these parameters (parametersSet() is false)')
      }
      this.fingerprint = fingerprintOf(seal, this.parms, params.security)
      this.evaluator = own(new seal.Evaluator(this.context))
      if (params.scheme === 'ckks') this.ckksEncoder = own(new seal.CKKSEncoder(this.context))
      else this.batchEncoder = own(sealCall('batch encoder', () => new seal.BatchEncoder(this.context)))
    } catch (error) {
      this.dispose()
      throw error
    }
  }

  get scheme(): SchemeName {
    return this.params.scheme
  }

  get slotCount(): number {
    return this.facts.slotCount
  }

  /** CKKS: the default encoding scale 2^scaleBits. */
  get scale(): number {
    return 2 ** (this.params.scaleBits ?? 0)
  }

  /** Chain index of a ciphertext/plaintext: `topLevel` when fresh, 0 at the last level. */
  levelOf(object: HasParmsId): number {
    // getContextData() hands back a non-null handle for unknown parms ids, so look
    // the id up in this context's own chain instead.
    const level = chainLevelOf(this, object)
    if (!level)
      throw new HeError('PARAMS_MISMATCH', 'object is not at any level of this context (other parameters, or empty)')
    return level.chainIndex
  }

  /** Chain index of fresh ciphertexts (the first data level). */
  get topLevel(): number {
    return withScope((scope) => scope.track(this.context.firstContextData()).chainIndex())
  }

  get disposed(): boolean {
    return this.#disposed
  }

  /** Deletes every SEAL object this context owns. Called by its cache only. */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const handle of this.#owned.reverse()) disown(handle)
    this.#owned.length = 0
  }
}

/**
 * SEAL's enum objects by our names (the names are the same). Enum arguments must be these
 * objects: a raw number silently means `none` to SEAL.
 */
function schemeType(seal: Seal, scheme: SchemeName) {
  return seal.SchemeType[scheme]
}

function securityLevel(seal: Seal, level: ResolvedParams['security']) {
  return seal.SecLevelType[level]
}

function fingerprintOf(seal: Seal, parms: EncryptionParameters, security: string): string {
  const bytes = parms.saveToArray(seal.ComprModeType.none) as Uint8Array
  const label = new TextEncoder().encode(`|${security}`)
  const input = new Uint8Array(bytes.length + label.length)
  input.set(bytes)
  input.set(label, bytes.length)
  return bytesToHex(sha256(input)).slice(0, 32)
}
