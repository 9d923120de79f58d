import { getHeContext } from '@sealbox/he-core'
import { decodeBundle } from '@sealbox/he-core/envelope'
import { PrivateSearchClient, syntheticSearchQuery } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectExactSearch, forgeQueryItem, type SearchNode, startSearchNode } from './searchNode.ts'

/*
 * Bit-packed queries against a real server process: a packed query is answered
 * exactly, and forged packed ciphertexts (a residue at or above its prime, a forged
 * count or width, a wrong seed type) are coded 4xx answers from the worker, never a
 * SEAL exception: the worker's SEAL exception gauge stays at 0 and the next honest
 * query is still answered.
 */

let server: SearchNode
let search: PrivateSearchClient

beforeAll(async () => {
  server = await startSearchNode({
    name: 'packed-search',
    rows: 300,
    dimension: 6,
    seed: 3,
    // g = D' = 8: no Galois keys, so each forged query meets nothing but its own checks.
    env: { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '8' },
  })
  // The encoding is each side's own choice (not part of the configId): this client packs.
  const config = { ...server.config, compression: 'packed' as const }
  search = PrivateSearchClient.create(await getHeContext(config.params), config)
}, 120_000)
afterAll(async () => {
  search?.dispose()
  await server?.stop()
})

describe('packed search queries on a real server', () => {
  it('answers a packed query exactly', async () => {
    // g = D' = 8 ciphertexts of 4096 × 55 bits, a seed and small headers each.
    expect(search.encryptQuery(syntheticSearchQuery(6, 5)).byteLength).toBeLessThan(8 * 28_500)
    await expectExactSearch(server, search, 5)
  })

  it('refuses forged packed ciphertexts with a coded 400, before SEAL sees them', async () => {
    const query = search.encryptQuery(syntheticSearchQuery(6, 6))
    expect(decodeBundle(query, { itemKind: 'ciphertext' }).items[0]?.compression).toBe('packed')
    const cases: [string, (payload: Uint8Array, view: DataView) => void, RegExp][] = [
      ['unreduced residues', (payload) => payload.fill(0xff, 24 + 2 + 65), /not below the prime/],
      ['a forged prime count', (_, view) => view.setUint8(6, 3), /header declares|primes/],
      ['a forged n', (_, view) => view.setUint32(8, 2048, true), /header declares|n = 2048/],
      ['a forged width', (payload) => payload.set([26], 24), /header declares|bits/],
      ['an unknown PRNG', (payload) => payload.set([0], 26), /PRNG type 0/],
      ['dropped low bits', (_, view) => view.setUint8(7, 4), /low-order bits/],
    ]
    for (const [what, edit, message] of cases) {
      const answer = await server.send('POST', '/api/v1/search', forgeQueryItem(query, edit))
      expect(answer.status, what).toBe(400)
      expect(answer.code, what).toBe('INVALID_ENVELOPE')
      expect(answer.message, what).toMatch(message)
    }
    expect(await server.sealExceptions()).toBe(0)
    await expectExactSearch(server, search, 7)
  })
})
