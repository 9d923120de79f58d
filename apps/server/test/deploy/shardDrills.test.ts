import { HeError, SealboxClient } from '@sealbox/he-core/client'
import { topKIndices } from '@sealbox/he-core/search'
import type { ServerNode } from '@sealbox/testkit'
import { TempPostgres, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import {
  DRILL_SEARCH_INTERVAL_MS,
  drillNodeEnv,
  type KeyedSearch,
  keyedSearch,
  metric,
  SearchLoop,
  storeOf,
} from './drillKit.ts'
import { SHARD_ROWS, type ShardedDeployment, startShardedDeployment } from './shardKit.ts'

/*
 * Issue 28's drills: a database in 2 shards × 2 replicas on one PostgreSQL behind nginx
 * (render.mjs --shard-node), a keyed search loop through he-core's client at the nginx
 * base URL (every answer checked against the plaintext oracle), and while it runs:
 * kill -9 of one replica (0 failed searches), a rolling restart of all four nodes (0
 * failed), a whole shard down (every failure a coded error naming the shard and the rows
 * it leaves out, never a wrong answer; with `partial: true` the other shard's hits,
 * flagged with the missing rows), PostgreSQL stopped (< 1 % failed: nodes serve keys
 * the store confirmed before).
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
/** The store outage lasts at least this long. */
const OUTAGE_MS = 8_000

let postgres: TempPostgres
let deployment: ShardedDeployment
let keyed: KeyedSearch
let viaNginx: SealboxClient

/** Resolves once nginx has sent a request for shard `i` to `node` (it is in the shard's rotation again). */
async function inRotation(i: number, node: ServerNode): Promise<void> {
  await waitFor(`nginx to route shard ${i} to ${node.name} again`, async () => {
    // No key set named: nginx spreads these over the shard's replicas at random.
    const response = await fetch(`${deployment.nginx.url}/shards/${i}/api/v1/search/config`, {
      signal: AbortSignal.timeout(5000),
    })
    await response.arrayBuffer()
    const answered = (response.headers.get('x-sealbox-node') ?? '').split(',').at(-1)?.trim()
    return response.status === 200 && answered === node.address
  })
}

beforeAll(async () => {
  postgres = await TempPostgres.start()
  const env = drillNodeEnv({
    TOKENS: `alice:${ALICE}`,
    KEY_STORE: await postgres.createDatabase('sealbox'),
    SYNTHETIC_ROWS: String(SHARD_ROWS),
  })
  deployment = await startShardedDeployment({ shards: 2, replicas: 2, env })
  viaNginx = new SealboxClient({ baseUrl: deployment.nginx.url, token: ALICE })
  keyed = await keyedSearch(viaNginx, 'main', SHARD_ROWS)
  expect(viaNginx.searchShards?.shards.map((shard) => shard.prefix)).toEqual(['/shards/0', '/shards/1'])
}, 900_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await deployment?.stop()
  await postgres?.stop()
})

describe('2 shards × 2 replicas while searches run', () => {
  it('loses 0 searches when one replica is killed (kill -9)', { timeout: 600_000 }, async () => {
    const loop = new SearchLoop(() => keyed.run(viaNginx), { intervalMs: DRILL_SEARCH_INTERVAL_MS })
    onTestFinished(async () => {
      await loop.stop()
    })
    await loop.waitForOk(3)
    const victim = deployment.nodes[0]?.[0] as ServerNode
    victim.signal('SIGKILL')
    await victim.exited()
    await loop.waitForOk(5)
    await deployment.restart(0, 0)
    await loop.waitForOk(3)
    const counts = await loop.stop()
    console.info(
      `shard drill, kill -9 of ${victim.name}: ${counts.ok + counts.failed} searches, ${counts.failed} failed`,
    )
    expect(counts.errors).toEqual([])
    expect(counts.failed).toBe(0)
  })

  it('loses 0 searches in a rolling restart of every node', { timeout: 900_000 }, async () => {
    const loop = new SearchLoop(() => keyed.run(viaNginx), { intervalMs: DRILL_SEARCH_INTERVAL_MS })
    onTestFinished(async () => {
      await loop.stop()
    })
    await loop.waitForOk(3)
    for (const [i, r] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ] as const) {
      await ((deployment.nodes[i] as ServerNode[])[r] as ServerNode).stop()
      const node = await deployment.restart(i, r)
      // The next replica of this shard stops only once nginx sends this one requests again.
      await inRotation(i, node)
      await loop.waitForOk(3)
    }
    const counts = await loop.stop()
    console.info(
      `shard drill, rolling restart of 4 nodes: ${counts.ok + counts.failed} searches, ${counts.failed} failed`,
    )
    expect(counts.errors).toEqual([])
    expect(counts.failed).toBe(0)
  })

  it('fails with a coded error naming the shard while a whole shard is down', { timeout: 600_000 }, async () => {
    // One try a call: the drill counts what a caller sees, not the client's retries.
    const once = viaNginx.with({ retry: false })
    const loop = new SearchLoop(() => keyed.run(once), { intervalMs: DRILL_SEARCH_INTERVAL_MS })
    onTestFinished(async () => {
      await loop.stop()
    })
    await loop.waitForOk(2)
    const shard = deployment.nodes[1] as ServerNode[]
    await Promise.all(shard.map((node) => node.stop()))
    const failedBefore = loop.counts.failed
    await waitFor('searches to fail while shard 1 is down', () => loop.counts.failed >= failedBefore + 3)
    const error = await once.search(keyed.query, { keySet: 'main' }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('OVERLOADED')
    expect((error as HeError).message).toMatch(/^shard 1 of 2 \(rows 4096–8999\) did not answer/)
    expect((error as HeError).details).toMatchObject({ shard: 1, shards: 2, missingRows: { start: 4096, end: 9000 } })
    // The option: the hits shard 0 has, flagged with the rows that were not searched.
    const partial = await once.search(keyed.query, { keySet: 'main', partial: true })
    expect(partial.missingShards?.map((shard) => [shard.index, shard.rows, shard.error.code])).toEqual([
      [1, { start: 4096, end: SHARD_ROWS }, 'OVERLOADED'],
    ])
    const ranked = keyed.search.rank(partial.responses, 10, { partial: true })
    expect(ranked.missingRows).toEqual([{ start: 4096, end: SHARD_ROWS }])
    const shard0 = keyed.oracle.slice(0, 4096)
    expect(ranked.hits.map((hit) => [hit.row, hit.score])).toEqual(
      topKIndices(shard0, 10).map((row) => [row, shard0[row]]),
    )
    // Never silently: without `partial` the same response is refused.
    expect(() => keyed.search.rank(partial.responses, 10)).toThrow(/holds 1 ciphertexts/)
    await Promise.all([deployment.restart(1, 0), deployment.restart(1, 1)])
    await Promise.all((deployment.nodes[1] as ServerNode[]).map((node) => inRotation(1, node)))
    await loop.waitForOk(3)
    const counts = await loop.stop()
    console.info(
      `shard drill, shard 1 down: ${counts.ok + counts.failed} searches, ${counts.failed} failed, each with a coded error naming shard 1`,
    )
    expect(counts.failed).toBeGreaterThan(0)
    // Never a wrong or silently partial answer: every failure names the shard that was down.
    for (const failure of counts.errors) expect(failure).toMatch(/shard 1 of 2 \(rows 4096–8999\) did not answer/)
  })

  it('loses < 1 % of searches while PostgreSQL is stopped', { timeout: 600_000 }, async () => {
    const loop = new SearchLoop(() => keyed.run(viaNginx), { intervalMs: DRILL_SEARCH_INTERVAL_MS })
    onTestFinished(async () => {
      await loop.stop()
    })
    await loop.waitForOk(3)
    await postgres.stopServer()
    const stoppedAt = Date.now()
    const nodes = deployment.nodes.flat()
    // The outage is real once a node has seen it (its store reported down) …
    await waitFor('a node to see the store down', async () => {
      const seen = await Promise.all(nodes.map(storeOf))
      return seen.some((store) => store.status === 'degraded')
    })
    const degraded = await Promise.all(nodes.map((node) => metric(node, 'sealbox_key_store_up')))
    expect(degraded).toContain(0)
    const okBefore = loop.counts.ok
    await Promise.all([
      // … and searches are answered through it: five after a node saw it down,
      loop.waitForOk(5),
      // for at least OUTAGE_MS in all (the drill's subject is an outage of that length, not an ordering).
      new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)))),
    ])
    const answeredDuringOutage = loop.counts.ok - okBefore
    await postgres.restart()
    const outageMs = Date.now() - stoppedAt
    await loop.waitForOk(3)
    const counts = await loop.stop()
    const share = counts.failed / (counts.ok + counts.failed)
    console.info(
      `shard drill, PostgreSQL down ${(outageMs / 1000).toFixed(1)} s: ${counts.ok + counts.failed} searches, ${counts.failed} failed, ${answeredDuringOutage} answered while a node saw the store down`,
    )
    expect(outageMs).toBeGreaterThanOrEqual(OUTAGE_MS)
    expect(answeredDuringOutage).toBeGreaterThanOrEqual(5)
    expect(share).toBeLessThan(0.01)
  })
})
