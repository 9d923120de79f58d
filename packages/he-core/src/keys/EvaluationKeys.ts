import { galoisKeyWordsBytes, rnsKernelApplies } from '@sealbox/he-ring'
import type { GaloisKeys, RelinKeys } from 'node-seal/throws'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeBundle } from '../envelope/decodeBundle.ts'
import { decodeEnvelope, type Envelope } from '../envelope/decodeEnvelope.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { peekEnvelope } from '../envelope/readEnvelopeHeader.ts'
import { HeError } from '../errors/HeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { adopt, disown, withScope } from '../scope/SealScope.ts'

/** Evaluation-key kinds a key set may hold (never a secret key). */
export const EVALUATION_KEY_KINDS = ['relinKeys', 'galoisKeys'] as const
export type EvaluationKeyKind = (typeof EVALUATION_KEY_KINDS)[number]

/** The envelopes of uploaded evaluation keys, verified (no SEAL call yet). */
export interface DecodedEvaluationKeys {
  fingerprint: string
  keySetId: string
  relinKeys: Envelope<'relinKeys'> | undefined
  galoisKeys: Envelope<'galoisKeys'> | undefined
  label: string | undefined
}

/**
 * Verifies uploaded evaluation keys — one relinKeys or galoisKeys envelope, or a
 * bundle of at most one of each — before SEAL sees them: checksum, kinds, one params
 * fingerprint, one key set, and never a secret key (SECRET_KEY_REFUSED).
 */
export function decodeEvaluationKeys(bytes: BytesLike, expect: { fingerprint?: string } = {}): DecodedEvaluationKeys {
  const header = peekEnvelope(bytes)
  const fingerprint = expect.fingerprint === undefined ? {} : { fingerprint: expect.fingerprint }
  const items: Envelope<EvaluationKeyKind>[] =
    header.kind === 'bundle'
      ? decodeBundle(bytes, { itemKind: EVALUATION_KEY_KINDS, refuseSecretKey: true, maxCount: 2, ...fingerprint })
          .items
      : [decodeEnvelope(bytes, { kind: EVALUATION_KEY_KINDS, refuseSecretKey: true, ...fingerprint })]
  let relinKeys: Envelope<'relinKeys'> | undefined
  let galoisKeys: Envelope<'galoisKeys'> | undefined
  for (const item of items) {
    if (item.kind === 'relinKeys') {
      if (relinKeys) throw new HeError('INVALID_INPUT', 'the key set holds relinearization keys twice')
      relinKeys = item
    } else {
      if (galoisKeys) throw new HeError('INVALID_INPUT', 'the key set holds Galois keys twice')
      galoisKeys = item
    }
  }
  const first = items[0]
  if (!first?.keySetId) {
    throw new HeError('INVALID_ENVELOPE', 'evaluation keys must carry the key-set id of their secret key')
  }
  return { fingerprint: first.fingerprint, keySetId: first.keySetId, relinKeys, galoisKeys, label: first.meta.label }
}

function isDecoded(source: BytesLike | DecodedEvaluationKeys): source is DecodedEvaluationKeys {
  return typeof (source as { keySetId?: unknown }).keySetId === 'string'
}

/**
 * A client's evaluation keys (relinearization and/or Galois) loaded into SEAL under
 * one context, with one owner: a server worker's key cache, or the test or job that
 * loaded them; `dispose` deletes them. Loading seeded keys expands their seeds (≈ 4 ms
 * at n=4096), which is why servers cache these. Fits `SearchKeys` (`id`, `galoisKeys`,
 * `ctx.fingerprint`), so a private search index takes it as is.
 */
export class EvaluationKeys implements Disposable {
  readonly fingerprint: string
  readonly keySetId: string
  readonly relinKeys: RelinKeys | undefined
  readonly galoisKeys: GaloisKeys | undefined
  /** Galois elements present, ascending. */
  readonly galoisElements: readonly number[]
  /**
   * Estimated bytes these keys occupy (a cache's budget unit): SEAL's copy in the WASM
   * heap, plus, where the params allow he-core's key-switching kernel (every prime below
   * 2^31), the u32 copy of the Galois keys a search index makes once and keeps with them.
   */
  readonly heapBytes: number
  #disposed = false

  private constructor(init: {
    fingerprint: string
    keySetId: string
    relinKeys: RelinKeys | undefined
    galoisKeys: GaloisKeys | undefined
    galoisElements: readonly number[]
    heapBytes: number
  }) {
    this.fingerprint = init.fingerprint
    this.keySetId = init.keySetId
    this.relinKeys = init.relinKeys
    this.galoisKeys = init.galoisKeys
    this.galoisElements = init.galoisElements
    this.heapBytes = init.heapBytes
  }

  /**
   * Loads evaluation keys into SEAL under `ctx` — from their bytes (verified first with
   * `decodeEvaluationKeys`, PARAMS_MISMATCH under other params) or already decoded — and
   * checks that the Galois elements their envelope claims are really there (a store and
   * the pre-SEAL checks of later requests rely on that list). The result is the caller's.
   *
   * `onlyGaloisElements`: load only those Galois keys (each must be listed, or
   * MISSING_KEY; none when empty), and the relinearization key only with `relinKeys`
   * (MISSING_KEY when the set has none) — what a search or a program needs of a key set
   * of hundreds of elements; the other keys are checked and skipped, never loaded.
   * `countKernelWords: false` leaves the kernel's words out of `heapBytes`, for an owner
   * that never gives these keys to a search (a server's evaluate programs).
   */
  static load(
    ctx: HeContext,
    source: BytesLike | DecodedEvaluationKeys,
    options: { onlyGaloisElements?: readonly number[]; relinKeys?: boolean; countKernelWords?: boolean } = {},
  ): EvaluationKeys {
    const decoded = isDecoded(source) ? source : decodeEvaluationKeys(source, { fingerprint: ctx.fingerprint })
    if (decoded.fingerprint !== ctx.fingerprint) {
      throw new HeError('PARAMS_MISMATCH', 'the key set was made under other encryption parameters', {
        details: { expected: ctx.fingerprint, found: decoded.fingerprint },
      })
    }
    return withScope((scope) => {
      const seal = ctx.seal
      let relinKeys: RelinKeys | undefined
      let galoisKeys: GaloisKeys | undefined
      const only = options.onlyGaloisElements
      if (only && options.relinKeys && !decoded.relinKeys) {
        throw new HeError('MISSING_KEY', 'the key set has no relinearization keys', {
          details: { needsRelinKeys: true },
        })
      }
      if (decoded.relinKeys && (!only || options.relinKeys)) {
        relinKeys = scope.track(new seal.RelinKeys())
        loadSealObject(relinKeys, ctx, decoded.relinKeys, { kind: 'relinKeys', refuseSecretKey: true })
      }
      const listed = decoded.galoisKeys?.meta.elements ?? []
      if (only) {
        const missing = only.filter((element) => !listed.includes(element))
        if (missing.length > 0) {
          throw new HeError('MISSING_KEY', `the key set lacks Galois elements ${missing.join(', ')}`, {
            details: { missing },
          })
        }
      }
      const elements = only ? [...new Set(only)] : listed
      if (decoded.galoisKeys && elements.length > 0) {
        const keys = scope.track(new seal.GaloisKeys())
        loadSealObject(
          keys,
          ctx,
          decoded.galoisKeys,
          { kind: 'galoisKeys', refuseSecretKey: true },
          only ? { onlyGaloisElements: elements } : {},
        )
        const missing = elements.filter((element) => !keys.hasKey(element))
        if (missing.length > 0 || keys.size() !== elements.length) {
          throw new HeError(
            'INVALID_ENVELOPE',
            `the Galois keys hold ${keys.size()} elements but their envelope lists ${elements.length} (missing: ${missing.join(', ') || 'none'})`,
          )
        }
        galoisKeys = keys
      }
      const sizes = ctx.facts.sizes
      // A search index may convert these keys for its key-switching kernel: those words
      // live with the keys (galoisKeyWordsOf), so the cache budget counts them up front —
      // unless the owner never gives them to a search (`countKernelWords: false`).
      const kernelWords =
        options.countKernelWords !== false &&
        ctx.plainModulus !== undefined &&
        rnsKernelApplies(ctx.coeffPrimes, ctx.plainModulus)
          ? galoisKeyWordsBytes(ctx.facts.polyModulusDegree, ctx.coeffPrimes.length)
          : 0
      // Hand the handles from the load's scope to the long-lived owner.
      return new EvaluationKeys({
        fingerprint: decoded.fingerprint,
        keySetId: decoded.keySetId,
        relinKeys: relinKeys ? adopt(scope.release(relinKeys)) : undefined,
        galoisKeys: galoisKeys ? adopt(scope.release(galoisKeys)) : undefined,
        galoisElements: [...elements].sort((a, b) => a - b),
        heapBytes: (relinKeys ? sizes.relinKeys : 0) + elements.length * (sizes.galoisKeyPerStep + kernelWords),
      })
    })
  }

  /**
   * The same keys re-saved in full form, uncompressed, as an envelope (or a bundle of
   * two) with the uploaded envelopes' metadata. What a server's bytes cache keeps: about
   * 4× the bytes of the seeded upload, loaded an order of magnitude faster (the
   * measurements: NODE-SEAL-FACTS.md §9); a durable store keeps the seeded upload.
   */
  saveFullForm(seal: { ComprModeType: { none: unknown } }, decoded: DecodedEvaluationKeys): Uint8Array {
    const none = seal.ComprModeType.none as Parameters<GaloisKeys['saveToArray']>[0]
    const base = { fingerprint: this.fingerprint, keySetId: this.keySetId, seeded: false }
    const items: Uint8Array[] = []
    if (this.relinKeys) {
      items.push(
        encodeEnvelope({
          ...base,
          kind: 'relinKeys',
          payload: this.relinKeys.saveToArray(none) as Uint8Array,
          ...(decoded.relinKeys ? { meta: decoded.relinKeys.meta } : {}),
        }),
      )
    }
    if (this.galoisKeys && decoded.galoisKeys) {
      items.push(
        encodeEnvelope({
          ...base,
          kind: 'galoisKeys',
          payload: this.galoisKeys.saveToArray(none) as Uint8Array,
          // The elements loaded: all those listed, or the ones `load` was asked for.
          meta: { ...decoded.galoisKeys.meta, elements: [...this.galoisElements] },
        }),
      )
    }
    return items.length === 1 ? (items[0] as Uint8Array) : encodeBundle(items)
  }

  /** `SearchKeys`: the key-set id the queries must carry. */
  get id(): string {
    return this.keySetId
  }

  /** `SearchKeys`: the params the keys were made under. */
  get ctx(): { fingerprint: string } {
    return { fingerprint: this.fingerprint }
  }

  /** Throws MISSING_KEY naming the Galois elements the keys lack. */
  requireGaloisElements(elements: readonly number[], what: string): void {
    const missing = elements.filter((element) => !this.galoisElements.includes(element))
    if (missing.length > 0) {
      throw new HeError(
        'MISSING_KEY',
        `${what} needs Galois elements ${missing.join(', ')}, which this key set lacks`,
        {
          details: { missing },
        },
      )
    }
  }

  get disposed(): boolean {
    return this.#disposed
  }

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    if (this.relinKeys) disown(this.relinKeys)
    if (this.galoisKeys) disown(this.galoisKeys)
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
