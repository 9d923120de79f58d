import { getHeContext, type HeContext, HeError } from '@sealbox/he-core'
import { SEALBOX_HEADERS } from '@sealbox/he-core/client'
import { splitEnvelopes } from '@sealbox/he-core/envelope'
import {
  decodeSearchResponse,
  PrivateSearchClient,
  plaintextSearchScores,
  searchResponseDroppedBits,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SearchNode, startSearchNode } from './searchNode.ts'

/*
 * Dropped low-order bits are the client's choice. A request without `x-sealbox-dropped-bits:
 * accept` — what an he-core client from before dropped bits sends, built here by the wire:
 * the query bundle, a bearer token and nothing else — gets packed blocks that keep every bit
 * (bytes 7 and 12 of each payload 0, which an older client insists on) and decrypt exactly;
 * `SealboxClient.search`, which accepts them, gets blocks with the rule's bits dropped off c0
 * and the same exact scores, smaller by n·k0/8 bytes a block (and every bit again when it
 * passes `droppedBits: false`). Several blocks and two workers
 * with SEARCH_SPLIT_BLOCKS=1: each query is split across both workers and its parts merged,
 * on both paths.
 */

const DIMENSION = 6
let server: SearchNode
let ctx: HeContext
let search: PrivateSearchClient

beforeAll(async () => {
  server = await startSearchNode({
    name: 'dropped-bits-opt-in',
    rows: 9000,
    dimension: DIMENSION,
    seed: 11,
    // g = D' = 8, client-side baby steps: no Galois keys; three blocks split over two workers.
    env: { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '8', WORKERS: '2', SEARCH_SPLIT_BLOCKS: '1' },
  })
  ctx = await getHeContext(server.config.params)
  search = PrivateSearchClient.create(ctx, server.config)
}, 120_000)
afterAll(async () => {
  search?.dispose()
  await server?.stop()
})

/** A search as an older client sends it: the bundle, its token, no dropped-bits header. */
async function searchByWire(query: Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.node.url}/api/v1/search`, {
    method: 'POST',
    body: query as BodyInit,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/octet-stream', ...headers },
  })
}

/** Bytes 7 and 12 of each block's packed payload: the low-order bits it dropped off c0 and c1. */
function droppedBitsOf(response: Uint8Array): [number, number][] {
  const { blocks } = decodeSearchResponse(response, {
    fingerprint: ctx.fingerprint,
    keySetId: search.keySet.id,
    configId: server.config.configId,
    blockCount: server.config.blocks.length,
  })
  expect(blocks).toHaveLength(server.config.blocks.length)
  return blocks.map(({ envelope }) => {
    expect(envelope.compression).toBe('packed')
    return [envelope.payload[7] as number, envelope.payload[12] as number]
  })
}

/** `sealbox_search_requests_total` by its `dropped_bits` label, from the node's /metrics. */
async function searchRequests(): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.node.url}/metrics`)).text()
  const counts: Record<string, number> = { accepted: 0, not_accepted: 0 }
  for (const match of text.matchAll(/^sealbox_search_requests_total\{dropped_bits="(\w+)"\} (\d+)$/gm)) {
    counts[match[1] as string] = Number(match[2])
  }
  return counts
}

function expectExactScores(response: Uint8Array, vector: Float64Array): void {
  const scores = search.decryptScores([response])
  expect(Array.from(scores.scores)).toEqual(Array.from(plaintextSearchScores(server.config, server.database, vector)))
  expect(scores.strayNonZeroSlots).toBe(0)
}

describe('dropped low-order bits only for a client that accepts them', () => {
  it('answers an older client every bit and the new client fewer, both exact', async () => {
    const blocks = server.config.blocks.length
    expect(blocks).toBeGreaterThanOrEqual(3)
    const [k0, k1] = searchResponseDroppedBits(ctx, server.config).bits
    // The served shape drops bits off c0 (else this suite proves nothing); c1 keeps every bit.
    expect(k0).toBeGreaterThan(0)
    expect(k1).toBe(0)

    const vector = syntheticSearchQuery(DIMENSION, 21)
    const query = search.encryptQuery(vector)
    const before = await searchRequests()

    const old = await searchByWire(query)
    expect(old.status).toBe(200)
    const [full, ...more] = splitEnvelopes(new Uint8Array(await old.arrayBuffer()))
    expect(more).toHaveLength(0)
    if (!full) throw new HeError('INTERNAL', 'no response')
    expect(droppedBitsOf(full)).toEqual(Array.from({ length: blocks }, () => [0, 0]))
    expectExactScores(full, vector)

    const { responses } = await server.client.search(query)
    const [dropped] = responses
    if (!dropped) throw new HeError('INTERNAL', 'no response')
    expect(droppedBitsOf(dropped)).toEqual(Array.from({ length: blocks }, () => [k0, 0]))
    expectExactScores(dropped, vector)

    // Every block's c0 is n coefficients of k0 bits fewer; nothing else differs in size.
    const n = server.config.polyModulusDegree
    expect(full.byteLength - dropped.byteLength).toBe((blocks * n * k0) / 8)
    // One request of each kind, counted once each however many workers answered its parts.
    expect(await searchRequests()).toEqual({
      accepted: (before.accepted as number) + 1,
      not_accepted: (before.not_accepted as number) + 1,
    })

    // The new client may ask for every bit too (responses handed on to an older he-core).
    const [asked] = (await server.client.search(query, { droppedBits: false })).responses
    if (!asked) throw new HeError('INTERNAL', 'no response')
    expect(droppedBitsOf(asked)).toEqual(Array.from({ length: blocks }, () => [0, 0]))
    expect(asked.byteLength).toBe(full.byteLength)
    expectExactScores(asked, vector)
  })

  it('refuses any other value of the header with a coded 400, and still answers', async () => {
    const query = search.encryptQuery(syntheticSearchQuery(DIMENSION, 22))
    for (const value of ['yes', 'ACCEPT', '1', 'accept, accept']) {
      const answer = await searchByWire(query, { [SEALBOX_HEADERS.droppedBits]: value })
      expect(answer.status, value).toBe(400)
      const body = (await answer.json()) as { error: { code: string; message: string } }
      expect(body.error.code, value).toBe('INVALID_INPUT')
      expect(body.error.message, value).toMatch(/x-sealbox-dropped-bits/)
    }
    const accepted = await searchByWire(query, { [SEALBOX_HEADERS.droppedBits]: 'accept' })
    expect(accepted.status).toBe(200)
    const [response] = splitEnvelopes(new Uint8Array(await accepted.arrayBuffer()))
    if (!response) throw new HeError('INTERNAL', 'no response')
    expect(droppedBitsOf(response).every(([k0]) => k0 > 0)).toBe(true)
    expect(await server.sealExceptions()).toBe(0)
  })
})
