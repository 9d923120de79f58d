import { SERVER_EXECUTOR_MODES, type SealboxClient, ServerExecutorModeSchema } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SearchSide, searchSide, startServer, type TestServer } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }

/*
 * The same tenant keys and the same encrypted queries go to three servers that
 * differ only in where HE runs: worker threads, the main loop, child processes.
 */
describe('encrypted search end to end, in all three executor modes', () => {
  const servers: Record<string, TestServer> = {}
  let side: SearchSide
  const decrypted: Record<string, Float64Array[]> = {}

  beforeAll(async () => {
    for (const mode of SERVER_EXECUTOR_MODES) servers[mode] = await startServer({ EXECUTOR: mode })
    side = await searchSide((servers.pool as TestServer).client, database)
  })
  afterAll(async () => {
    side?.[Symbol.dispose]()
    for (const server of Object.values(servers)) await server.close()
  })

  for (const mode of SERVER_EXECUTOR_MODES) {
    it(`${mode}: decrypted scores equal the plaintext oracle, with Server-Timing phases`, async () => {
      const server = servers[mode] as TestServer
      const config = await server.client.searchConfig()
      expect(config.configId).toBe(side.config.configId)
      // The source is typed data a client can rebuild the public synthetic rows from.
      expect(config.database.source).toEqual({
        type: 'synthetic',
        seed: database.seed,
        rows: database.rows,
        dimension: database.dim,
      })
      expect(side.keys).not.toBeNull()
      const client: SealboxClient = await server.tenant()
      const upload = await client.putKeySet('search-keys', side.keys as Uint8Array)
      expect(upload.replaced).toBe(false)
      expect(upload.keySet).toMatchObject({ id: 'search-keys', kinds: ['galoisKeys'], configId: config.configId })
      const queries = [side.query(1), side.query(2), side.query(3)]
      const result = await client.search(
        queries.map((q) => q.bytes),
        { keySet: 'search-keys' },
      )
      expect(result.executor).toBe(mode)
      expect(result.responses).toHaveLength(3)
      expect(result.queryMs).toHaveLength(3)
      for (const phase of ['queue', 'keydeserialize', 'deserialize', 'compute', 'serialize', 'total'] as const) {
        expect(result.timing[phase], phase).toBeGreaterThanOrEqual(0)
      }
      // The upload left the keys' kernel form in the node's bytes cache: no store read.
      expect(result.timing.keyload).toBeUndefined()
      decrypted[mode] = result.responses.map((response, i) => {
        const scores = side.search.decryptScores(response)
        expect(scores.minNoiseBudget).toBeGreaterThan(0)
        expect(scores.strayNonZeroSlots).toBe(0)
        expect(Array.from(scores.scores)).toEqual(Array.from((queries[i] as { expected: Float64Array }).expected))
        return scores.scores
      })
      // The second search finds the keys already deserialized in the worker's cache.
      const again = await client.search(queries[0]?.bytes as Uint8Array, { keySet: 'search-keys' })
      expect(again.timing.keyload ?? 0).toBe(0)
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      expect(metrics).toMatch(new RegExp(`sealbox_key_cache_lookups_total\\{executor="${mode}",result="hit"\\} [1-9]`))
    })
  }

  it('gives identical results in every mode', () => {
    expect(Object.keys(decrypted).sort()).toEqual([...SERVER_EXECUTOR_MODES].sort())
    for (const mode of ServerExecutorModeSchema.exclude(['pool']).options) {
      expect((decrypted[mode] as Float64Array[]).map((s) => Array.from(s))).toEqual(
        (decrypted.pool as Float64Array[]).map((s) => Array.from(s)),
      )
    }
  })
})

describe('encrypted search with client-side baby steps (no evaluation keys at all)', () => {
  it('needs no key set and matches the oracle', async () => {
    // g = D' = 8 for D = 6: every diagonal from the client's rotations, so no rotation and no key.
    const server = await startServer({ SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: 8 })
    try {
      const client = await server.tenant()
      using side = await searchSide(client, database)
      expect(side.keys).toBeNull()
      const q = side.query(11)
      const result = await client.search(q.bytes)
      expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
      // The client may trade upload for server time: unseeded (zstd, or uncompressed and read in place).
      for (const compression of ['zstd', 'none'] as const) {
        const unseeded = side.search.encryptQuery(q.vector, { seeded: false, compression })
        expect(unseeded.byteLength).toBeGreaterThan(q.bytes.byteLength)
        const answer = await client.search(unseeded)
        expect(Array.from(side.search.decryptScores(answer.responses).scores), compression).toEqual(
          Array.from(q.expected),
        )
      }
    } finally {
      await server.close()
    }
  })
})
