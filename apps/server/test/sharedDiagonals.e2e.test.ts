import { waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide, searchSide, startServer, type TestServer } from './harness.ts'

/*
 * One processed copy of the search database per node: three worker threads, one of which
 * processes the database into the node's shared diagonal memory while the other two (and
 * every replacement) attach to it. V = 9,000 rows at n = 4096 are three blocks; each query
 * is split by blocks across the workers, so every worker's kernel reads the shared copy.
 */
const database = { rows: 9000, dim: 16, seed: 5 }

async function metrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text()
}

function metric(text: string, pattern: RegExp): number {
  return Number(pattern.exec(text)?.[1] ?? 0)
}

const warmups = (text: string, how: 'processed' | 'attached') =>
  metric(text, new RegExp(`^sealbox_worker_warmups_total\\{executor="pool",database="${how}"\\} (\\d+)$`, 'm'))

describe('the search database shared by the worker threads of a node', () => {
  let server: TestServer
  let side: SearchSide

  beforeAll(async () => {
    server = await startServer({
      WORKERS: 3,
      SYNTHETIC_ROWS: database.rows,
      SYNTHETIC_DIM: database.dim,
      SYNTHETIC_SEED: database.seed,
      SEARCH_BABY_STEPS: 'server',
      SEARCH_BABY_STEP: 4,
      SEARCH_SPLIT_BLOCKS: 1,
      // One caught SEAL exception recycles a worker: the `sealError` fault recycles on demand.
      SEAL_ERROR_RECYCLE: 1,
    })
    side = await searchSide(server.client, database)
  })
  afterAll(async () => {
    side?.[Symbol.dispose]()
    await server?.close()
  })

  async function searchExactly(seeds: number[]): Promise<void> {
    const client = await server.tenant()
    await client.putKeySet('keys', side.keys as Uint8Array)
    const queries = seeds.map((seed) => side.query(seed))
    const result = await client.search(
      queries.map((q) => q.bytes),
      { keySet: 'keys' },
    )
    for (const [i, response] of result.responses.entries()) {
      const scores = side.search.decryptScores(response)
      expect(scores.strayNonZeroSlots).toBe(0)
      const expected = (queries[i] as { expected: Float64Array }).expected
      expect(
        expected.findIndex((score, row) => scores.scores[row] !== score),
        `query ${seeds[i]}`,
      ).toBe(-1)
    }
  }

  it('processes once: one worker builds the shared copy, the others attach, and all answer exactly', async () => {
    const text = await metrics(server.url)
    expect(warmups(text, 'processed')).toBe(1)
    expect(warmups(text, 'attached')).toBe(2)
    const shared = metric(text, /^sealbox_search_diagonal_bytes\{executor="pool",shared="true"\} (\d+)$/m)
    // Every diagonal once, u32 (half of SEAL's u64 NTT-form plaintexts: the processing report
    // counts the form it holds), beside the 64 KiB header page and the published layout (a
    // few hundred bytes of JSON).
    const { processing } = (await server.client.searchConfig()).database
    expect(processing?.form).toBe('kernel')
    const diagonalBytes = processing?.bytes as number
    expect(diagonalBytes).toBeGreaterThan(0)
    expect(shared - 65536 - diagonalBytes).toBeGreaterThanOrEqual(0)
    expect(shared - 65536 - diagonalBytes).toBeLessThan(4096)
    // Three parts, one per worker: each worker's kernel reads the one copy.
    await searchExactly([1, 2, 3])
  })

  it('a recycled worker (SEAL_ERROR_RECYCLE) is replaced by one that attaches, and the search stays exact', async () => {
    const session = await server.client.createSession()
    const before = await metrics(server.url)
    const recycled = () =>
      metric(before, /^sealbox_worker_replacements_total\{executor="pool",reason="sealExceptions"\} (\d+)$/m)
    await raw(`${server.url}/api/v1/_faults/sealError`, { method: 'POST', token: session.session.token })
    await waitFor('the recycled worker replaced by one that attached', async () => {
      const text = await metrics(server.url)
      return (
        warmups(text, 'attached') === warmups(before, 'attached') + 1 &&
        metric(text, /^sealbox_worker_replacements_total\{executor="pool",reason="sealExceptions"\} (\d+)$/m) ===
          recycled() + 1
      )
    })
    await server.client.waitUntilReady(60_000)
    expect(warmups(await metrics(server.url), 'processed')).toBe(1)
    await searchExactly([6, 7])
  })

  it('a worker that dies is replaced by one that attaches to the same copy and answers exactly', async () => {
    const session = await server.client.createSession()
    const before = await metrics(server.url)
    const crashed = await raw(`${server.url}/api/v1/_faults/crash`, { method: 'POST', token: session.session.token })
    expect([crashed.status, crashed.json.error?.code]).toEqual([500, 'WORKER_FAILED'])
    // The replacement's warm-up shows on /metrics: an event, not a sleep.
    await waitFor('the replacement worker attached', async () => {
      return warmups(await metrics(server.url), 'attached') === warmups(before, 'attached') + 1
    })
    await server.client.waitUntilReady(60_000)
    const after = await metrics(server.url)
    // Nothing processed again: the copy outlived the thread that built it or read it.
    expect(warmups(after, 'processed')).toBe(1)
    await searchExactly([4, 5])
  })
})

describe('a search outside the key-switching kernel', () => {
  it('keeps a copy per worker: the processing worker publishes the shared memory unused', async () => {
    // BFV runs in SEAL's evaluator: its plaintexts are SEAL's, in each worker's heap.
    const small = { rows: 300, dim: 6, seed: 4 }
    const server = await startServer({
      WORKERS: 2,
      SYNTHETIC_ROWS: small.rows,
      SYNTHETIC_DIM: small.dim,
      SYNTHETIC_SEED: small.seed,
      SEARCH_SCHEME: 'bfv',
    })
    try {
      const text = await metrics(server.url)
      expect(warmups(text, 'processed')).toBe(2)
      expect(warmups(text, 'attached')).toBe(0)
      expect(text).not.toMatch(/^sealbox_search_diagonal_bytes\{executor="pool"/m)
      using side = await searchSide(server.client, small)
      const client = await server.tenant()
      if (side.keys) await client.putKeySet('keys', side.keys)
      const query = side.query(1)
      const result = await client.search(query.bytes, side.keys ? { keySet: 'keys' } : {})
      expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(query.expected))
    } finally {
      await server.close()
    }
  })
})
