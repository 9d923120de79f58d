import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { decodeBundle } from '../envelope/decodeBundle.ts'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import { HeError } from '../errors/HeError.ts'
import type { SearchBlockRange } from './processSearchDatabase.ts'

/*
 * The search messages are ordinary envelope bundles of ciphertexts. The bundle label
 * names the message and the search config it was made for; item labels say which
 * baby step (query) or block (response) each ciphertext is. Nothing else is needed
 * on the wire: the configId fixes the layout on both sides.
 */

const QUERY_LABEL = 'sealbox.search.query/'
const RESPONSE_LABEL = 'sealbox.search.response/'

/** A SEAL ciphertext saved by `saveToArray`, with what the envelope says about it. */
export interface WireCiphertext {
  payload: Uint8Array
  seeded: boolean
  level: number
}

interface WireIdentity {
  fingerprint: string
  keySetId: string
  configId: string
}

function itemEnvelope(identity: WireIdentity, item: WireCiphertext): Uint8Array {
  return encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: identity.fingerprint,
    keySetId: identity.keySetId,
    seeded: item.seeded,
    payload: item.payload,
    meta: { level: item.level, size: 2 },
  })
}

/** Wraps the g (or 1) query ciphertexts in one bundle. */
export function encodeSearchQuery(identity: WireIdentity, ciphertexts: readonly WireCiphertext[]): Uint8Array {
  return encodeBundle(
    ciphertexts.map((item) => itemEnvelope(identity, item)),
    { label: `${QUERY_LABEL}${identity.configId}`, labels: ciphertexts.map((_, a) => `a${a}`) },
  )
}

/** A verified query: its key set and its ciphertext envelopes, in baby-step order. */
export interface DecodedSearchQuery {
  keySetId: string
  items: Envelope<'ciphertext'>[]
}

function configIdOfLabel(label: string | undefined, prefix: string, what: string): string {
  if (label === undefined || !label.startsWith(prefix)) {
    throw new HeError(
      'INVALID_INPUT',
      `this bundle is not a search ${what} (its label is ${JSON.stringify(label ?? null)})`,
    )
  }
  return label.slice(prefix.length)
}

/**
 * Verifies a query bundle before SEAL sees it: envelope checks (checksums, kinds,
 * params fingerprint → PARAMS_MISMATCH, no secret key), the search config, one key
 * set, and exactly `count` ciphertexts.
 */
export function decodeSearchQuery(
  bytes: BytesLike,
  expect: { fingerprint: string; configId: string; count: number },
): DecodedSearchQuery {
  // The bundle's CRC covers the items, which live only as long as this request: one pass.
  const bundle = decodeBundle(bytes, {
    itemKind: 'ciphertext',
    fingerprint: expect.fingerprint,
    refuseSecretKey: true,
    itemChecksums: false,
  })
  const configId = configIdOfLabel(bundle.meta.label, QUERY_LABEL, 'query')
  if (configId !== expect.configId) {
    throw new HeError(
      'INVALID_INPUT',
      `this query was made for search config ${configId}; this index serves config ${expect.configId}`,
      { details: { expected: expect.configId, found: configId } },
    )
  }
  if (bundle.items.length !== expect.count) {
    throw new HeError(
      'INVALID_INPUT',
      `the query holds ${bundle.items.length} ciphertexts; search config ${expect.configId} expects ${expect.count}`,
      { details: { expected: expect.count, found: bundle.items.length } },
    )
  }
  if (bundle.keySetId === undefined) throw new HeError('INVALID_INPUT', 'the query ciphertexts name no key set')
  return { keySetId: bundle.keySetId, items: bundle.items as Envelope<'ciphertext'>[] }
}

/** Wraps response ciphertexts (one per block, with its block index). */
export function encodeSearchResponse(
  identity: WireIdentity,
  blocks: readonly (WireCiphertext & { index: number })[],
): Uint8Array {
  return encodeBundle(
    blocks.map((block) => itemEnvelope(identity, block)),
    { label: `${RESPONSE_LABEL}${identity.configId}`, labels: blocks.map((block) => `block ${block.index}`) },
  )
}

/** A verified response: the block index and envelope of each ciphertext. */
export interface DecodedSearchResponse {
  blocks: { index: number; envelope: Envelope<'ciphertext'> }[]
}

/**
 * Verifies one or more response bundles (a query split across workers answers in
 * parts): params, key set (KEY_SET_MISMATCH when the response was computed on another
 * key set's query), config, and every block in `0…blockCount−1` exactly once (or in
 * `expect.blocks` only: what one shard of a sharded database answers for).
 */
export function decodeSearchResponse(
  parts: BytesLike | readonly BytesLike[],
  expect: WireIdentity & { blockCount: number; blocks?: SearchBlockRange; partial?: boolean },
): DecodedSearchResponse {
  const first = expect.blocks?.start ?? 0
  const end = expect.blocks?.end ?? expect.blockCount
  const list: readonly BytesLike[] = Array.isArray(parts) ? parts : [parts as BytesLike]
  const byIndex = new Map<number, Envelope<'ciphertext'>>()
  for (const part of list) {
    const bundle = decodeBundle(part, {
      itemKind: 'ciphertext',
      fingerprint: expect.fingerprint,
      keySetId: expect.keySetId,
    })
    const configId = configIdOfLabel(bundle.meta.label, RESPONSE_LABEL, 'response')
    if (configId !== expect.configId) {
      throw new HeError(
        'INVALID_INPUT',
        `this response is for search config ${configId}; this client uses config ${expect.configId}`,
        { details: { expected: expect.configId, found: configId } },
      )
    }
    const labels = bundle.meta.labels ?? []
    for (const [i, envelope] of bundle.items.entries()) {
      const index = Number(/^block (\d+)$/.exec(labels[i] ?? '')?.[1] ?? Number.NaN)
      if (!Number.isInteger(index) || index < first || index >= end) {
        throw new HeError('INVALID_INPUT', `response item ${i} names no block of ${first}…${end - 1}`)
      }
      if (byIndex.has(index)) throw new HeError('INVALID_INPUT', `the response holds block ${index} twice`)
      byIndex.set(index, envelope as Envelope<'ciphertext'>)
    }
  }
  // partial: the blocks of a shard that did not answer are missing, and the caller says so.
  if (byIndex.size !== end - first && !(expect.partial && byIndex.size > 0)) {
    const wanted =
      end - first === expect.blockCount ? `has ${expect.blockCount} blocks` : `wants blocks ${first}…${end - 1}`
    throw new HeError(
      'INVALID_INPUT',
      `the response holds ${byIndex.size} ciphertexts; search config ${expect.configId} ${wanted}`,
      { details: { expected: end - first, found: byIndex.size } },
    )
  }
  return {
    blocks: [...byIndex.entries()].sort(([a], [b]) => a - b).map(([index, envelope]) => ({ index, envelope })),
  }
}

/**
 * One response bundle from the parts of a query split across workers by blocks (each a
 * response bundle of its blocks): every part verified as `decodeSearchResponse` does —
 * params, key set, config, every block of `0…blockCount−1` exactly once — and the blocks
 * re-bundled in order, their envelopes as they are. What a server sends its client is
 * then the same as a single worker's answer.
 */
export function mergeSearchResponses(
  parts: readonly BytesLike[],
  expect: WireIdentity & { blockCount: number; blocks?: SearchBlockRange; partial?: boolean },
): Uint8Array {
  const { blocks } = decodeSearchResponse(parts, expect)
  return encodeBundle(
    blocks.map((block) => block.envelope),
    { label: `${RESPONSE_LABEL}${expect.configId}`, labels: blocks.map((block) => `block ${block.index}`) },
  )
}
