import type { GaloisKeys } from 'node-seal/throws'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeEnvelope } from '../envelope/decodeEnvelope.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { adopt, disown } from '../scope/SealScope.ts'

/**
 * What the server needs from a user's keys: the key-set id and the Galois keys.
 * A `KeySet` fits, and so does `SearchEvaluationKeys` (keys uploaded by a client).
 */
export interface SearchKeys {
  readonly id: string
  readonly galoisKeys: GaloisKeys | undefined
  readonly ctx: { readonly fingerprint: string }
}

/**
 * A client's uploaded Galois keys, loaded on the server. Loading seeded keys expands
 * their seeds (≈ 4 ms at n=4096), so a server caches these per worker; the cache owns
 * them and calls `dispose()` on eviction.
 */
export class SearchEvaluationKeys implements SearchKeys, Disposable {
  readonly ctx: HeContext
  readonly id: string
  readonly galoisKeys: GaloisKeys
  /** Galois elements the keys hold (from the envelope meta). */
  readonly elements: readonly number[]
  /** Bytes of the envelope they came from. */
  readonly byteLength: number
  #disposed = false

  private constructor(ctx: HeContext, id: string, galoisKeys: GaloisKeys, elements: number[], byteLength: number) {
    this.ctx = ctx
    this.id = id
    this.galoisKeys = galoisKeys
    this.elements = elements
    this.byteLength = byteLength
  }

  /**
   * Verifies a Galois-keys envelope (checksum, kind, params fingerprint, never a secret
   * key) and loads it. The result is owned by the caller.
   */
  static load(ctx: HeContext, bytes: BytesLike): SearchEvaluationKeys {
    const envelope = decodeEnvelope(bytes, { kind: 'galoisKeys', fingerprint: ctx.fingerprint, refuseSecretKey: true })
    if (envelope.keySetId === undefined) throw new HeError('INVALID_INPUT', 'these Galois keys name no key set')
    const galoisKeys = adopt(new ctx.seal.GaloisKeys())
    try {
      loadSealObject(galoisKeys, ctx, envelope, { kind: 'galoisKeys' })
    } catch (error) {
      disown(galoisKeys)
      throw error
    }
    return new SearchEvaluationKeys(
      ctx,
      envelope.keySetId,
      galoisKeys,
      [...envelope.meta.elements],
      envelope.byteLength,
    )
  }

  get disposed(): boolean {
    return this.#disposed
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    disown(this.galoisKeys)
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
