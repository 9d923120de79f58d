import {
  adopt,
  decodeBundle,
  decodeEnvelope,
  disown,
  type Envelope,
  encodeBundle,
  encodeEnvelope,
  type HeContext,
  HeError,
  loadSealObject,
  peekEnvelope,
  withScope,
} from '@sealbox/he-core'
import type { GaloisKeys, RelinKeys } from 'node-seal/throws'
import type { EvaluationKeyKind, KeySetFacts } from '../store/KeyStore.ts'

/** The envelopes of an uploaded key set, verified (no SEAL call yet). */
export interface DecodedKeySet {
  fingerprint: string
  keySetId: string
  relinKeys: Envelope<'relinKeys'> | undefined
  galoisKeys: Envelope<'galoisKeys'> | undefined
  label: string | undefined
}

const KEY_KINDS = ['relinKeys', 'galoisKeys'] as const

/**
 * Verifies an uploaded key set — one relinKeys or galoisKeys envelope, or a bundle
 * of at most one of each — before SEAL sees it: checksum, kinds, one params
 * fingerprint, one key set, and never a secret key (SECRET_KEY_REFUSED).
 */
export function decodeKeySet(bytes: Uint8Array, expect: { fingerprint?: string } = {}): DecodedKeySet {
  const header = peekEnvelope(bytes)
  const fingerprint = expect.fingerprint === undefined ? {} : { fingerprint: expect.fingerprint }
  const items: Envelope<EvaluationKeyKind>[] =
    header.kind === 'bundle'
      ? decodeBundle(bytes, { itemKind: KEY_KINDS, refuseSecretKey: true, maxCount: 2, ...fingerprint }).items
      : [decodeEnvelope(bytes, { kind: KEY_KINDS, refuseSecretKey: true, ...fingerprint })]
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
  return {
    fingerprint: first.fingerprint,
    keySetId: first.keySetId,
    relinKeys,
    galoisKeys,
    label: first.meta.label,
  }
}

/** What the store records about a decoded key set. */
export function factsOf(decoded: DecodedKeySet, extra: Partial<KeySetFacts> = {}): KeySetFacts {
  const kinds: EvaluationKeyKind[] = []
  if (decoded.relinKeys) kinds.push('relinKeys')
  if (decoded.galoisKeys) kinds.push('galoisKeys')
  return {
    keySetId: decoded.keySetId,
    fingerprint: decoded.fingerprint,
    kinds,
    galoisElements: [...(decoded.galoisKeys?.meta.elements ?? [])].sort((a, b) => a - b),
    ...(decoded.label === undefined ? {} : { label: decoded.label }),
    ...extra,
  }
}

/**
 * Deserialized evaluation keys of one tenant's key set under one context. Owned by a
 * worker's key cache (or by a single job when uncached); `dispose` deletes them.
 */
export class EvaluationKeys {
  readonly fingerprint: string
  readonly keySetId: string
  readonly relinKeys: RelinKeys | undefined
  readonly galoisKeys: GaloisKeys | undefined
  /** Galois elements present, ascending. */
  readonly galoisElements: readonly number[]
  /** Estimated WASM bytes these keys occupy (the cache's budget unit). */
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
   * Loads a decoded key set into SEAL under `ctx` and checks that the Galois
   * elements its envelope claims are really there (the store and the pre-SEAL
   * checks of later requests rely on that list).
   */
  static load(ctx: HeContext, decoded: DecodedKeySet): EvaluationKeys {
    if (decoded.fingerprint !== ctx.fingerprint) {
      throw new HeError('PARAMS_MISMATCH', 'the key set was made under other encryption parameters', {
        details: { expected: ctx.fingerprint, found: decoded.fingerprint },
      })
    }
    return withScope((scope) => {
      const seal = ctx.seal
      let relinKeys: RelinKeys | undefined
      let galoisKeys: GaloisKeys | undefined
      if (decoded.relinKeys) {
        relinKeys = scope.track(new seal.RelinKeys())
        loadSealObject(relinKeys, ctx, decoded.relinKeys, { kind: 'relinKeys', refuseSecretKey: true })
      }
      const elements = decoded.galoisKeys?.meta.elements ?? []
      if (decoded.galoisKeys) {
        const keys = scope.track(new seal.GaloisKeys())
        loadSealObject(keys, ctx, decoded.galoisKeys, { kind: 'galoisKeys', refuseSecretKey: true })
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
      const heapBytes = (relinKeys ? sizes.relinKeys : 0) + elements.length * sizes.galoisKeyPerStep
      // Hand the handles from the job's scope to the long-lived owner.
      const owned = new EvaluationKeys({
        fingerprint: decoded.fingerprint,
        keySetId: decoded.keySetId,
        relinKeys: relinKeys ? adopt(scope.release(relinKeys)) : undefined,
        galoisKeys: galoisKeys ? adopt(scope.release(galoisKeys)) : undefined,
        galoisElements: [...elements].sort((a, b) => a - b),
        heapBytes,
      })
      return owned
    })
  }

  /**
   * The same keys re-saved in full form, uncompressed, as an envelope (or a bundle of
   * two) with the uploaded envelopes' metadata. What the node's bytes cache keeps:
   * measured at n=4096 (steps 1, 8) the uploaded seeded zstd form (0.20 MiB) loads in
   * 6–11 ms, this form (0.78 MiB) in 0.33 ms; at n=8192 (steps 1, 4) 20–40 ms for
   * 2.1 MiB vs 4–9 ms for 5.1 MiB. The durable store keeps the seeded upload (4× fewer bytes).
   */
  saveFullForm(seal: { ComprModeType: { none: unknown } }, decoded: DecodedKeySet): Uint8Array {
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
          meta: decoded.galoisKeys.meta,
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

  /** Throws MISSING_KEY naming the first Galois element the keys lack. */
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

  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    if (this.relinKeys) disown(this.relinKeys)
    if (this.galoisKeys) disown(this.galoisKeys)
  }
}
