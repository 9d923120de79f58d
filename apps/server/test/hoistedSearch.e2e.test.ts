import { exportGaloisKeys, getHeContext, type HeContext, KeySet } from '@sealbox/he-core'
import { decodeEnvelope } from '@sealbox/he-core/envelope'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectExactSearch, fixEnvelopeCrc, type SearchNode, startSearchNode } from './searchNode.ts'

/*
 * Rotations in he-core's key-switching kernel on a real server, with hoisted baby steps
 * (a Galois key per step 1 … g − 1), on a hidden-style shape: D = 10 (not a power of
 * two) and V = 5000 (not a multiple of n = 4096, so the last block is partly folded).
 * Responses decrypt exactly to the plaintext oracle; Galois keys with a residue at or
 * above its prime are a coded 400; well-formed keys that are not the user's (random
 * residues) give a wrong answer, never a crash; and the index keeps answering exactly.
 */

const DIM = 10
let server: SearchNode
let config: SearchConfig
let ctx: HeContext
let keySet: KeySet
let search: PrivateSearchClient

beforeAll(async () => {
  server = await startSearchNode({
    name: 'hoisted-search',
    rows: 5000,
    dimension: DIM,
    seed: 5,
    env: { SEARCH_BABY_STEPS: 'server', SEARCH_BABY_STEP: '4', SEARCH_HOIST_BABY_STEPS: 'true' },
  })
  config = server.config
  ctx = await getHeContext(config.params)
  keySet = KeySet.generate(ctx, { galois: { steps: config.galoisSteps } })
  search = PrivateSearchClient.create(ctx, config, { keySet })
}, 180_000)
afterAll(async () => {
  search?.dispose()
  keySet?.[Symbol.dispose]()
  await server?.stop()
})

/** SEAL's uncompressed, unseeded save of the key set's Galois keys (residues at known offsets). */
function uncompressedKeys(): Uint8Array {
  return exportGaloisKeys(keySet, { seeded: false, compression: 'none' })
}

const expectExact = (seed: number, keySet: string) => expectExactSearch(server, search, seed, { keySet })

describe('hoisted baby steps on a real server', () => {
  it('serves a hoisted config (a key per baby step) whose answers equal the plaintext oracle', async () => {
    expect(config.hoistBabySteps).toBe(true)
    expect(config.babySteps).toBe('server')
    expect(config.galoisSteps).toEqual([1, 2, 3, 4])
    await server.client.putKeySet('genuine', search.evaluationKeys() as Uint8Array)
    for (const seed of [1, 2, 3]) await expectExact(seed, 'genuine')
  })

  it('refuses Galois keys with unreduced residues (400, coded), and forged-but-reduced keys only spoil their own answer', async () => {
    const genuine = uncompressedKeys()
    const before = await server.sealExceptions()
    const prime = ctx.coeffPrimes[0] as bigint
    const payloadAt = decodeEnvelope(genuine).payload.byteOffset
    // SEAL keeps one slot per Galois index (index 0 empty, then element 3 = step 1); the
    // first residue follows its record's headers (see RnsKernel.test.ts).
    const firstWord = payloadAt + 16 + 32 + 8 + 8 + 8 + 16 + 73 + 16 + 8
    const answers: string[] = []
    for (const forged of [prime, (1n << 40n) + 5n]) {
      const bytes = genuine.slice()
      new DataView(bytes.buffer).setBigUint64(firstWord, forged, true)
      fixEnvelopeCrc(bytes)
      const answer = await server.send('PUT', '/api/v1/keysets/unreduced', bytes)
      answers.push(`${answer.status} ${answer.code}`)
      expect(answer.message).toMatch(/not valid|prime|residue/)
    }
    expect(answers).toEqual(['400 INVALID_ENVELOPE', '400 INVALID_ENVELOPE'])
    expect(await server.sealExceptions()).toBe(before)
    expect((await server.client.listKeySets()).keySets.map((k) => k.id)).not.toContain('unreduced')

    // Every residue replaced by another one below its prime: SEAL and the kernel accept the
    // keys (they are well formed); the answer is noise, not the scores, and nothing breaks.
    const scrambled = genuine.slice()
    const view = new DataView(scrambled.buffer)
    // Step 1's first key component: 2 polynomials × 3 key-level primes × n residues.
    const componentWords = 2 * ctx.coeffPrimes.length * config.polyModulusDegree
    for (let at = firstWord; at < firstWord + componentWords * 8; at += 8) {
      const word = view.getBigUint64(at, true)
      if (word > 0n) view.setBigUint64(at, word - 1n, true)
    }
    fixEnvelopeCrc(scrambled)
    await server.client.putKeySet('scrambled', scrambled)
    const vector = syntheticSearchQuery(DIM, 4)
    const result = await server.client.search(search.encryptQuery(vector), { keySet: 'scrambled' })
    expect(Array.from(search.decryptScores(result.responses).scores)).not.toEqual(
      Array.from(plaintextSearchScores(config, server.database, vector)),
    )
    await expectExact(5, 'genuine')
    expect(await server.sealExceptions()).toBe(before)
  })
})
