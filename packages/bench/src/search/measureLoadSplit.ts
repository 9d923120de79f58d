import { getHeContext, withScope } from '@sealbox/he-core'
import {
  crc32,
  decodeBundle,
  loadSealObject,
  payloadLimitsOf,
  prepareSealPayload,
  sealCompressionMode,
} from '@sealbox/he-core/envelope'
import {
  PrivateSearchClient,
  resolveSearchConfig,
  type SearchConfigInput,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { type Spread, timeSpread } from '../core/stats.ts'

/** Where the load (and save) time of one query goes, per part, summed over the query's ciphertexts. */
export interface LoadSplit {
  compression: 'zstd' | 'none'
  queryCiphertexts: number
  queryBytes: number
  /** decodeBundle of the whole query: every envelope check. */
  decodeBundle: Spread
  /** One CRC-32 over the whole bundle (the outer check). */
  bundleChecksum: Spread
  /** The CRC-32 of every item again (decodeBundle verifies each item's own checksum too). */
  itemChecksums: Spread
  /** prepareSealPayload per item: JavaScript inflate (zstd) and the pre-parse of counts and sizes. */
  inflateAndCheck: Spread
  /** SEAL loadFromArray of the prepared (uncompressed, seeded) payloads: copy into the heap, parse, seed expansion. */
  sealLoadSeeded: Spread
  /** SEAL loadFromArray of the same ciphertexts saved unseeded and uncompressed: copy and parse, no PRNG. */
  sealLoadUnseeded: Spread
  /** The whole load phase as PrivateSearchIndex runs it (loadSealObject per item). */
  loadPhase: Spread
  /** One response ciphertext (last level) saved with this compression, and its bytes. */
  saveOne: Spread
  saveOneBytes: number
}

/**
 * Splits the load phase of one query of `input` with a finer clock than the phase
 * timer: each part is timed alone over every query ciphertext, `samples` times.
 */
export async function measureLoadSplit(
  input: SearchConfigInput,
  compression: 'zstd' | 'none',
  samples: number,
): Promise<LoadSplit> {
  const config = resolveSearchConfig({ ...input, compression })
  const ctx = await getHeContext(config.params)
  using client = PrivateSearchClient.create(ctx, config)
  const query = client.encryptQuery(syntheticSearchQuery(config.dimension, 7))
  const expect = { itemKind: 'ciphertext' as const, fingerprint: ctx.fingerprint, refuseSecretKey: true }
  const bundle = decodeBundle(query, expect)
  const limits = payloadLimitsOf(ctx)
  return withScope((scope) => {
    const target = scope.track(new ctx.seal.Ciphertext())
    const prepared = bundle.items.map((item) => prepareSealPayload(item, limits).payload)
    const unseeded = prepared.map((payload) => {
      target.loadFromArray(ctx.context, payload)
      return target.saveToArray(sealCompressionMode('none')) as Uint8Array
    })
    const lastParmsId = scope.track(ctx.context.lastParmsId())
    const response = scope.track(new ctx.seal.Ciphertext())
    ctx.evaluator.cipherModSwitchTo(target, lastParmsId, response)
    const mode = sealCompressionMode(compression)
    const timed = (fn: () => void) => timeSpread(fn, { samples, warmup: 3 })
    return {
      compression,
      queryCiphertexts: bundle.items.length,
      queryBytes: query.byteLength,
      decodeBundle: timed(() => decodeBundle(query, expect)),
      bundleChecksum: timed(() => crc32(query.subarray(0, query.byteLength - 4))),
      itemChecksums: timed(() => {
        for (const item of bundle.items) crc32(item.bytes.subarray(0, item.bytes.byteLength - 4))
      }),
      inflateAndCheck: timed(() => {
        for (const item of bundle.items) prepareSealPayload(item, limits)
      }),
      sealLoadSeeded: timed(() => {
        for (const payload of prepared) target.loadFromArray(ctx.context, payload)
      }),
      sealLoadUnseeded: timed(() => {
        for (const payload of unseeded) target.loadFromArray(ctx.context, payload)
      }),
      loadPhase: timed(() => {
        for (const item of bundle.items) loadSealObject(target, ctx, item, { kind: 'ciphertext' })
      }),
      saveOne: timed(() => response.saveToArray(mode)),
      saveOneBytes: (response.saveToArray(mode) as Uint8Array).byteLength,
    }
  })
}
