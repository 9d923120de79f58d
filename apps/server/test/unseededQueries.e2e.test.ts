import { getHeContext, type HeContext } from '@sealbox/he-core'
import { decodeBundle } from '@sealbox/he-core/envelope'
import { PrivateSearchClient, plaintextSearchScores, syntheticSearchQuery } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectExactSearch, forgeQueryItem, type SearchNode, startSearchNode } from './searchNode.ts'

/*
 * Unseeded, uncompressed queries against a real server whose search rotates in he-core's
 * key-switching kernel (server-side baby steps): the kernel reads such a query's words in
 * place, without a SEAL load, so its own checks are all that stand between a forged body
 * and the kernel. A residue at or above its prime (or a word of 2^32 or more) is refused
 * by the kernel; a SEAL header unlike a fresh query ciphertext's is not read in place but
 * pre-parsed before SEAL's load. Each is a coded 400, never a SEAL exception (the worker's
 * gauge stays where it was), and the index answers exactly afterwards.
 */

/** Offsets in SEAL's save of a ciphertext: its 16-byte header, then parms_id, the NTT flag, size, n, primes. */
const SEAL = { magic: 0, nttForm: 48, size: 49, polyModulusDegree: 57, primes: 65 } as const

let server: SearchNode
let ctx: HeContext
let search: PrivateSearchClient
const unseeded = (vector: Float64Array) => search.encryptQuery(vector, { seeded: false, compression: 'none' })

beforeAll(async () => {
  server = await startSearchNode({
    name: 'unseeded-queries',
    // D = 10 (not a power of two), V = 5000 (the last block partly folded).
    rows: 5000,
    dimension: 10,
    seed: 6,
    env: { SEARCH_BABY_STEPS: 'server', SEARCH_BABY_STEP: '4' },
  })
  ctx = await getHeContext(server.config.params)
  search = PrivateSearchClient.create(ctx, server.config)
  await server.client.putKeySet('keys', search.evaluationKeys() as Uint8Array)
}, 180_000)
afterAll(async () => {
  search?.dispose()
  await server?.stop()
})

describe('unseeded uncompressed queries read in place by the key-switching kernel', () => {
  it('are answered exactly', async () => {
    expect(server.config.babySteps).toBe('server')
    expect(server.config.galoisSteps).toEqual([1, 4])
    const query = unseeded(syntheticSearchQuery(10, 1))
    const item = decodeBundle(query, { itemKind: 'ciphertext' }).items[0]
    expect([item?.seeded, item?.compression]).toEqual([false, 'none'])
    await expectExactSearch(server, search, 1, { keySet: 'keys', encrypt: unseeded })
  })

  it('refuse unreduced words and forged headers with a coded 400 and no SEAL exception, and stay usable', async () => {
    const query = unseeded(syntheticSearchQuery(10, 2))
    const before = await server.sealExceptions()
    const lastPrime = ctx.coeffPrimes[ctx.facts.dataPrimeCount - 1] as bigint
    const word = (at: (payload: Uint8Array) => number, value: bigint) => (payload: Uint8Array, view: DataView) =>
      view.setBigUint64(at(payload), value, true)
    const cases: [string, (payload: Uint8Array, view: DataView) => void, RegExp][] = [
      [
        'the last residue equal to its prime',
        word((p) => p.byteLength - 8, lastPrime),
        /query ciphertext 0 has 1 coefficients at or above their prime/,
      ],
      [
        'a residue word of 2^40',
        word((p) => p.byteLength - 8 * 4096, 1n << 40n),
        /query ciphertext 0 has 1 coefficients at or above their prime/,
      ],
      ['a wrong SEAL magic', (_, view) => view.setUint16(SEAL.magic, 0xbeef, true), /magic|header/],
      ['3 polynomials', word(() => SEAL.size, 3n), /3 polynomials; at most 2/],
      ['n = 2048', word(() => SEAL.polyModulusDegree, 2048n), /poly_modulus_degree 2048/],
      ['one prime more', word(() => SEAL.primes, 3n), /coefficients; 2 × 4096 × 3/],
    ]
    for (const [what, edit, message] of cases) {
      const answer = await server.send('POST', '/api/v1/search?keySet=keys', forgeQueryItem(query, edit))
      expect(answer.status, what).toBe(400)
      expect(answer.code, what).toBe('INVALID_ENVELOPE')
      expect(answer.message, what).toMatch(message)
    }
    expect(await server.sealExceptions()).toBe(before)
    // A cleared NTT flag is a header the kernel does not read in place either; SEAL's load
    // reads every BGV ciphertext in NTT form whatever that byte says, so the (genuine) words
    // are answered exactly, not misread.
    const vector = syntheticSearchQuery(10, 5)
    const flagCleared = forgeQueryItem(unseeded(vector), (_, view) => view.setUint8(SEAL.nttForm, 0))
    const result = await server.client.search(flagCleared, { keySet: 'keys' })
    expect(Array.from(search.decryptScores(result.responses).scores)).toEqual(
      Array.from(plaintextSearchScores(server.config, server.database, vector)),
    )
    expect(await server.sealExceptions()).toBe(before)
    await expectExactSearch(server, search, 3, { keySet: 'keys', encrypt: unseeded })
    // And a seeded query, through SEAL's load, after them.
    await expectExactSearch(server, search, 4, { keySet: 'keys' })
  })
})
