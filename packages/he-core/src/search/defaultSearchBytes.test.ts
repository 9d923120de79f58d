import { describe, expect, it } from 'vitest'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { searchFixture } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'
import { topKIndices } from './topK.ts'

/*
 * The bytes a user pays at the shape of Apple's PNNS example (V = 4096, D = 128, cosine),
 * measured on real objects of the default config, not on the cost model's estimate:
 * Apple's published figures are a 28.2 KB query, a 52.1 KB response and 170.2 KB of
 * evaluation keys; the default must stay within 30,000 / 55,000 / 175,000 bytes.
 */
const APPLE = { rows: 4096, dimension: 128 } as const

describe("the default config's bytes at Apple's shape", () => {
  it('sends ≤ 30,000 query bytes, receives ≤ 55,000, uploads ≤ 175,000 bytes of keys and finds the true top hit', async () => {
    using fixture = await searchFixture(APPLE)
    const { config, client, index, keys, database } = fixture
    // The keys exactly as the client uploads them (the default encoding).
    const keyBytes = client.evaluationKeys()
    expect(keyBytes).not.toBeNull()
    expect(keyBytes?.byteLength).toBeLessThanOrEqual(175_000)
    for (const seed of [1, 2]) {
      const vector = syntheticSearchQuery(config.dimension, seed)
      const query = client.encryptQuery(vector)
      expect(query.byteLength).toBeLessThanOrEqual(30_000)
      const { response } = index.evaluate(query, keys)
      expect(response.byteLength).toBeLessThanOrEqual(55_000)
      const oracle = plaintextSearchScores(config, database, vector)
      const { hits } = client.rank(response, 1)
      expect(hits[0]?.row).toBe(topKIndices(oracle, 1)[0])
      expect(Array.from(client.decryptScores(response).scores)).toEqual(Array.from(oracle))
    }
  })
})
