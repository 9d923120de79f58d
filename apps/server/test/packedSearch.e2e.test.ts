import { crc32, decodeBundle, getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ServerNode } from '../src/testing/ServerNode.ts'

/*
 * Bit-packed queries against a real server process: a packed query is answered
 * exactly, and forged packed ciphertexts (a residue at or above its prime, a forged
 * count or width, a wrong seed type) are coded 4xx answers from the worker, never a
 * SEAL exception: the worker's SEAL exception gauge stays at 0 and the next honest
 * query is still answered.
 */

const ROWS = 300
const DIM = 6
const TOKEN = 'token-of-packed-0123456789abcdefghijkl'
let node: ServerNode
let client: SealboxClient
let search: PrivateSearchClient
let config: SearchConfig
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 3 })

beforeAll(async () => {
  node = await ServerNode.start({
    name: 'packed-search',
    env: {
      MODE: 'production',
      TOKENS: `packed:${TOKEN}`,
      WORKERS: '1',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SYNTHETIC_SEED: '3',
      // g = D' = 8: no Galois keys, so each forged query meets nothing but its own checks.
      SEARCH_BABY_STEPS: 'client',
      SEARCH_BABY_STEP: '8',
    },
  })
  client = new SealboxClient({ baseUrl: node.url, token: TOKEN })
  const { database: _facts, fingerprint: _fingerprint, ...served } = await client.searchConfig()
  // The encoding is each side's own choice (not part of the configId): this client packs.
  config = { ...served, compression: 'packed' }
  search = PrivateSearchClient.create(await getHeContext(config.params), config)
}, 120_000)
afterAll(async () => {
  search?.dispose()
  await node?.stop()
})

/** The raw answer to a search body: status and the coded error. */
async function post(body: Uint8Array): Promise<{ status: number; code?: string; message?: string }> {
  const response = await fetch(`${node.url}/api/v1/search`, {
    method: 'POST',
    body: body as BodyInit,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
  })
  const json = (await response.json()) as { error?: { code: string; message: string } }
  return { status: response.status, ...json.error }
}

async function sealExceptions(): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  const values = [...text.matchAll(/^sealbox_worker_seal_exceptions\{[^}]*\} (\d+)/gm)].map((m) => Number(m[1]))
  return values.reduce((sum, value) => sum + value, 0)
}

/** A copy of a query with the first item's packed payload edited, both checksums recomputed. */
function forge(query: Uint8Array, edit: (payload: Uint8Array, view: DataView) => void): Uint8Array {
  const bytes = query.slice()
  const item = decodeBundle(bytes, { itemKind: 'ciphertext' }).items[0]
  if (!item) throw new Error('no item')
  expect(item.compression).toBe('packed')
  edit(item.payload, new DataView(item.payload.buffer, item.payload.byteOffset, item.payload.byteLength))
  const fix = (envelope: Uint8Array) =>
    new DataView(envelope.buffer, envelope.byteOffset + envelope.byteLength - 4, 4).setUint32(
      0,
      crc32(envelope.subarray(0, envelope.byteLength - 4)),
      true,
    )
  fix(item.bytes)
  fix(bytes)
  return bytes
}

describe('packed search queries on a real server', () => {
  it('answers a packed query exactly', async () => {
    const vector = syntheticSearchQuery(DIM, 5)
    const query = search.encryptQuery(vector)
    // g = D' = 8 ciphertexts of 4096 × 55 bits, a seed and small headers each.
    expect(query.byteLength).toBeLessThan(8 * 28_500)
    const result = await client.search(query)
    expect(Array.from(search.decryptScores(result.responses).scores)).toEqual(
      Array.from(plaintextSearchScores(config, database, vector)),
    )
  })

  it('refuses forged packed ciphertexts with a coded 400, before SEAL sees them', async () => {
    const query = search.encryptQuery(syntheticSearchQuery(DIM, 6))
    const cases: [string, (payload: Uint8Array, view: DataView) => void, RegExp][] = [
      ['unreduced residues', (payload) => payload.fill(0xff, 24 + 2 + 65), /not below the prime/],
      ['a forged prime count', (_, view) => view.setUint8(6, 3), /header declares|primes/],
      ['a forged n', (_, view) => view.setUint32(8, 2048, true), /header declares|n = 2048/],
      ['a forged width', (payload) => payload.set([26], 24), /header declares|bits/],
      ['an unknown PRNG', (payload) => payload.set([0], 26), /PRNG type 0/],
      ['dropped low bits', (_, view) => view.setUint8(7, 4), /low-order bits/],
    ]
    for (const [what, edit, message] of cases) {
      const answer = await post(forge(query, edit))
      expect(answer.status, what).toBe(400)
      expect(answer.code, what).toBe('INVALID_ENVELOPE')
      expect(answer.message, what).toMatch(message)
    }
    expect(await sealExceptions()).toBe(0)
    const vector = syntheticSearchQuery(DIM, 7)
    const result = await client.search(search.encryptQuery(vector))
    expect(Array.from(search.decryptScores(result.responses).scores)).toEqual(
      Array.from(plaintextSearchScores(config, database, vector)),
    )
  })
})
