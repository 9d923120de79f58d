import { crc32, decodeEnvelope, exportGaloisKeys, getHeContext, type HeContext, KeySet } from '@sealbox/he-core'
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
 * Rotations in he-core's key-switching kernel on a real server, with hoisted baby steps
 * (a Galois key per step 1 … g − 1), on a hidden-style shape: D = 10 (not a power of
 * two) and V = 5000 (not a multiple of n = 4096, so the last block is partly folded).
 * Responses decrypt exactly to the plaintext oracle; Galois keys with a residue at or
 * above its prime are a coded 400; well-formed keys that are not the user's (random
 * residues) give a wrong answer, never a crash; and the index keeps answering exactly.
 */

const ROWS = 5000
const DIM = 10
const TOKEN = 'token-of-hoisted-0123456789abcdefghijkl'
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 5 })
let node: ServerNode
let client: SealboxClient
let config: SearchConfig
let ctx: HeContext
let keySet: KeySet
let search: PrivateSearchClient

beforeAll(async () => {
  node = await ServerNode.start({
    name: 'hoisted-search',
    env: {
      MODE: 'production',
      TOKENS: `hoisted:${TOKEN}`,
      WORKERS: '1',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SYNTHETIC_SEED: '5',
      SEARCH_BABY_STEPS: 'server',
      SEARCH_BABY_STEP: '4',
      SEARCH_HOIST_BABY_STEPS: 'true',
    },
  })
  client = new SealboxClient({ baseUrl: node.url, token: TOKEN })
  const { database: _facts, fingerprint: _fingerprint, ...served } = await client.searchConfig()
  config = served
  ctx = await getHeContext(config.params)
  keySet = KeySet.generate(ctx, { galois: { steps: config.galoisSteps } })
  search = PrivateSearchClient.create(ctx, config, { keySet })
}, 180_000)
afterAll(async () => {
  search?.dispose()
  keySet?.[Symbol.dispose]()
  await node?.stop()
})

async function sealExceptions(): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  const values = [...text.matchAll(/^sealbox_worker_seal_exceptions\{[^}]*\} (\d+)/gm)].map((m) => Number(m[1]))
  return values.reduce((sum, value) => sum + value, 0)
}

/** SEAL's uncompressed, unseeded save of the key set's Galois keys (residues at known offsets). */
function uncompressedKeys(): Uint8Array {
  return exportGaloisKeys(keySet, { seeded: false, compression: 'none' })
}

/** The envelope's CRC-32 (its last 4 bytes) recomputed after an edit. */
function fixEnvelopeCrc(bytes: Uint8Array): void {
  new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 4, 4).setUint32(
    0,
    crc32(bytes.subarray(0, bytes.byteLength - 4)),
    true,
  )
}

async function expectExact(seed: number, keySetId: string): Promise<void> {
  const vector = syntheticSearchQuery(DIM, seed)
  const result = await client.search(search.encryptQuery(vector), { keySet: keySetId })
  const scores = search.decryptScores(result.responses)
  expect(Array.from(scores.scores)).toEqual(Array.from(plaintextSearchScores(config, database, vector)))
  expect(scores.strayNonZeroSlots).toBe(0)
}

describe('hoisted baby steps on a real server', () => {
  it('serves a hoisted config (a key per baby step) whose answers equal the plaintext oracle', async () => {
    expect(config.hoistBabySteps).toBe(true)
    expect(config.babySteps).toBe('server')
    expect(config.galoisSteps).toEqual([1, 2, 3, 4])
    await client.putKeySet('genuine', search.evaluationKeys() as Uint8Array)
    for (const seed of [1, 2, 3]) await expectExact(seed, 'genuine')
  })

  it('refuses Galois keys with unreduced residues (400, coded), and forged-but-reduced keys only spoil their own answer', async () => {
    const genuine = uncompressedKeys()
    const before = await sealExceptions()
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
      const response = await fetch(`${node.url}/api/v1/keysets/unreduced`, {
        method: 'PUT',
        body: bytes as BodyInit,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
      })
      const json = (await response.json()) as { error?: { code: string; message: string } }
      answers.push(`${response.status} ${json.error?.code}`)
      expect(json.error?.message).toMatch(/not valid|prime|residue/)
    }
    expect(answers).toEqual(['400 INVALID_ENVELOPE', '400 INVALID_ENVELOPE'])
    expect(await sealExceptions()).toBe(before)
    expect((await client.listKeySets()).keySets.map((k) => k.id)).not.toContain('unreduced')

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
    await client.putKeySet('scrambled', scrambled)
    const vector = syntheticSearchQuery(DIM, 4)
    const result = await client.search(search.encryptQuery(vector), { keySet: 'scrambled' })
    expect(Array.from(search.decryptScores(result.responses).scores)).not.toEqual(
      Array.from(plaintextSearchScores(config, database, vector)),
    )
    await expectExact(5, 'genuine')
    expect(await sealExceptions()).toBe(before)
  })
})
