import { HeError } from '@sealbox/he-core'
import { decodeBundle } from '@sealbox/he-core/envelope'
import { resolveSearchConfig, searchCost } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchParts } from '../src/executor/splitSearch.ts'
import { errorOf, type SearchSide, searchSide, startServer, type TestServer } from './harness.ts'

/*
 * One query split across a node's two worker threads by blocks, and merged on the way
 * out: V = 9,000 rows at n = 4096 are three blocks. Server-side baby steps (Galois keys),
 * so every part looks its keys up once: /metrics counts the parts.
 */
const database = { rows: 9000, dim: 16, seed: 3 }
const SHAPE = {
  WORKERS: 2,
  SYNTHETIC_ROWS: database.rows,
  SYNTHETIC_DIM: database.dim,
  SYNTHETIC_SEED: database.seed,
  SEARCH_BABY_STEPS: 'server',
  SEARCH_BABY_STEP: 4,
} as const

async function keyLookups(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text()
  let total = 0
  for (const match of metrics.matchAll(/^sealbox_key_cache_lookups_total\{executor="pool",result="\w+"\} (\d+)$/gm)) {
    total += Number(match[1])
  }
  return total
}

describe('searchParts', () => {
  it('splits by blocks, no part below the minimum, as many parts as workers at most', () => {
    expect(searchParts(25, 2, 8)).toEqual([
      { start: 0, end: 13 },
      { start: 13, end: 25 },
    ])
    expect(searchParts(25, 4, 8)).toEqual([
      { start: 0, end: 9 },
      { start: 9, end: 17 },
      { start: 17, end: 25 },
    ])
    expect(searchParts(3, 2, 8)).toEqual([{ start: 0, end: 3 }])
    expect(searchParts(15, 2, 8)).toEqual([{ start: 0, end: 15 }])
    expect(searchParts(3, 2, 1)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 3 },
    ])
    expect(searchParts(1, 8, 1)).toEqual([{ start: 0, end: 1 }])
  })
})

describe('a query split across the workers of a node', () => {
  let split: TestServer
  let whole: TestServer
  let side: SearchSide

  beforeAll(async () => {
    split = await startServer({ ...SHAPE, SEARCH_SPLIT_BLOCKS: 1 })
    whole = await startServer({ ...SHAPE })
    side = await searchSide(split.client, database)
  })
  afterAll(async () => {
    side?.[Symbol.dispose]()
    await split?.close()
    await whole?.close()
  })

  it('answers exactly, merged into one response per query, as the unsplit server does', async () => {
    const answers: Uint8Array[][] = []
    for (const server of [split, whole]) {
      const client = await server.tenant()
      await client.putKeySet('keys', side.keys as Uint8Array)
      const before = await keyLookups(server.url)
      const queries = [side.query(1), side.query(2)]
      const result = await client.search(
        queries.map((q) => q.bytes),
        { keySet: 'keys' },
      )
      expect(result.responses).toHaveLength(2)
      for (const [i, response] of result.responses.entries()) {
        const scores = side.search.decryptScores(response)
        expect(scores.strayNonZeroSlots).toBe(0)
        const expected = (queries[i] as { expected: Float64Array }).expected
        // The first wrong row, not a diff of 9,000 numbers.
        expect(
          expected.findIndex((score, row) => scores.scores[row] !== score),
          `query ${i}`,
        ).toBe(-1)
      }
      // Two parts (blocks 0–1 and 2) on the split server, one job on the other: one key lookup a job.
      expect(await keyLookups(server.url), server === split ? 'split' : 'whole').toBe(
        before + (server === split ? 2 : 1),
      )
      answers.push(result.responses)
    }
    // The same scores from both (each equal to the oracle above), one response per query.
    expect(answers.map((list) => list.length)).toEqual([2, 2])
    // SealboxClient.search accepts dropped bits: every part dropped the same low-order bits of
    // c0 in each of its blocks, so the merged responses are as long as the unsplit ones.
    const droppedOfC0 = (responses: Uint8Array[]) =>
      responses.flatMap((response) =>
        decodeBundle(response, { itemKind: 'ciphertext' }).items.map((item) => item.payload[7]),
      )
    const [splitAnswers = [], wholeAnswers = []] = answers
    expect(droppedOfC0(splitAnswers)).toHaveLength(6)
    expect(new Set(droppedOfC0(splitAnswers)).size).toBe(1)
    expect(droppedOfC0(splitAnswers)[0]).toBeGreaterThan(0)
    expect(droppedOfC0(splitAnswers)).toEqual(droppedOfC0(wholeAnswers))
    expect(splitAnswers.map((r) => r.byteLength)).toEqual(wholeAnswers.map((r) => r.byteLength))
  })

  it('prices the split query as the sum of its parts', async () => {
    // Client-side baby steps (g = D' = 16): no key upload to pay for, only searches.
    const clientSide = { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: 16 } as const
    const config = resolveSearchConfig({
      rows: database.rows,
      dimension: database.dim,
      babySteps: 'client',
      babyStep: 16,
    })
    const one = searchCost(config, 1)
    // A budget of 1.5 queries over an hour (no refill to speak of): the first split query fits,
    // a second does not. Were each part priced as the whole query, the first would not fit.
    const priced = await startServer({
      ...SHAPE,
      ...clientSide,
      SEARCH_SPLIT_BLOCKS: 1,
      TENANT_COST_BUDGET: one * 1.5,
      TENANT_COST_WINDOW_MS: 3_600_000,
      MAX_PROGRAM_COST: 1,
    })
    try {
      const client = await priced.tenant()
      using own = await searchSide(priced.client, database)
      expect(own.config.configId).toBe(config.configId)
      const q = own.query(4)
      const before = await keyLookups(priced.url)
      const first = await client.search(q.bytes)
      const scores = own.search.decryptScores(first.responses).scores
      expect(q.expected.findIndex((score, row) => scores[row] !== score)).toBe(-1)
      expect(await keyLookups(priced.url)).toBe(before)
      const refused = await errorOf(client.search(q.bytes))
      expect(refused).toBeInstanceOf(HeError)
      expect(refused.code).toBe('RATE_LIMITED')
    } finally {
      await priced.close()
    }
  })
})
