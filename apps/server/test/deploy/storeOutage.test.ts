import { HeError, SealboxClient } from '@sealbox/he-core/client'
import { ServerNode, TempNginx, TempPostgres, waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drillNodeEnv, type KeyedSearch, keyedSearch, metric, SearchLoop, storeOf } from './drillKit.ts'

/*
 * Drill: PostgreSQL stopped for 10 s while alice searches with her keys through nginx.
 * The node that holds her keys keeps answering from the record the store confirmed
 * before the outage (KEY_STORE_STALE_MS), /readyz says the store is degraded and the
 * node stays ready, /metrics shows it; fewer than 1 % of searches may fail. A node
 * configured with KEY_STORE_STALE_MS=0 refuses instead (503 STORE_UNAVAILABLE). When
 * the store is back, a deletion made through one node is seen by the next search on
 * every node.
 */

const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
/** The drill's outage: PostgreSQL is down at least this long, while searches run. */
const OUTAGE_MS = 10_000

let postgres: TempPostgres
let nodes: ServerNode[]
let strict: ServerNode
let nginx: TempNginx
let keyed: KeyedSearch

beforeAll(async () => {
  postgres = await TempPostgres.start()
  const env = drillNodeEnv({ TOKENS: `alice:${ALICE}`, KEY_STORE: await postgres.createDatabase('sealbox') })
  ;[nodes, strict] = await Promise.all([
    Promise.all([ServerNode.start({ name: 'node-a', env }), ServerNode.start({ name: 'node-b', env })]),
    ServerNode.start({ name: 'strict', env: { ...env, KEY_STORE_STALE_MS: '0' } }),
  ])
  nginx = await TempNginx.start({ nodes: nodes.map((node) => node.address) })
  keyed = await keyedSearch(new SealboxClient({ baseUrl: nginx.url, token: ALICE }))
}, 240_000)

afterAll(async () => {
  keyed?.search[Symbol.dispose]()
  await nginx?.stop()
  await Promise.all([...(nodes ?? []), strict].map((node) => node?.stop()))
  await postgres?.stop()
})

describe('keyed searches through a key-store outage', () => {
  it('loses < 1 % of searches while PostgreSQL is stopped for 10 s; /readyz and /metrics say degraded', async () => {
    const viaNginx = new SealboxClient({ baseUrl: nginx.url, token: ALICE })
    const onStrict = new SealboxClient({ baseUrl: strict.url, token: ALICE, retry: false })
    await keyed.run(onStrict)
    const loop = new SearchLoop(() => keyed.run(viaNginx))
    await loop.waitForOk(5)

    await postgres.stopServer()
    const stoppedAt = Date.now()
    const okBefore = loop.counts.ok
    await waitFor('a node to see the store degraded', async () => {
      const seen = await Promise.all(nodes.map(storeOf))
      return seen.some((store) => store.status === 'degraded')
    })
    // The configured staleness bound: a node that may serve nothing stale refuses.
    const refused = await onStrict.search(keyed.query, { keySet: 'main' }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(HeError)
    expect((refused as HeError).code).toBe('STORE_UNAVAILABLE')
    const statuses = await Promise.all(nodes.map(storeOf))
    const degraded = nodes[statuses.findIndex((store) => store.status === 'degraded')] as ServerNode
    expect(await metric(degraded, 'sealbox_key_store_up')).toBe(0)
    await Promise.all([
      loop.waitForOk(10),
      // Not an ordering: the drill's subject is an outage of at least OUTAGE_MS, so the store
      // stays down until that deadline (and until ten searches were answered meanwhile).
      new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)))),
    ])
    const answeredDuringOutage = loop.counts.ok - okBefore
    await postgres.restart()
    const outageMs = Date.now() - stoppedAt

    await waitFor('every node to see the store again', async () => {
      await keyed.run(new SealboxClient({ baseUrl: nodes[0]?.url as string, token: ALICE }))
      await keyed.run(new SealboxClient({ baseUrl: nodes[1]?.url as string, token: ALICE }))
      return (await Promise.all(nodes.map(storeOf))).every((store) => store.status === 'ok')
    })
    await loop.waitForOk(5)
    const counts = await loop.stop()
    const stale = (await Promise.all(nodes.map((node) => metric(node, 'sealbox_key_store_stale_serves_total')))).reduce(
      (a, b) => a + b,
    )
    const share = counts.failed / (counts.ok + counts.failed)
    console.info(
      `store outage drill: PostgreSQL down ${(outageMs / 1000).toFixed(1)} s; ${counts.ok + counts.failed} searches, ${counts.failed} failed (${(share * 100).toFixed(2)} %); ${answeredDuringOutage} answered during the outage; ${stale} from records confirmed before it`,
    )
    expect(outageMs).toBeGreaterThanOrEqual(OUTAGE_MS)
    expect(share).toBeLessThan(0.01)
    expect(stale).toBeGreaterThan(0)
    // The operator's log: store failures a few lines (rate-limited), never a stack per request.
    for (const node of nodes) {
      const lines = (await node.log()).split('\n')
      expect(lines.filter((line) => line.includes('"stack"') || /^\s+at /.test(line))).toEqual([])
      expect(lines.filter((line) => line.includes('key store')).length).toBeLessThan(20)
    }
  })

  it('sees a deletion made through one node on the next search of every node once the store is back', async () => {
    const [nodeA, nodeB] = nodes as [ServerNode, ServerNode]
    for (const node of nodes) await keyed.run(new SealboxClient({ baseUrl: node.url, token: ALICE }))
    await new SealboxClient({ baseUrl: nodeA.url, token: ALICE }).deleteKeySet('main')
    for (const node of [nodeB, nodeA]) {
      const error = await keyed
        .run(new SealboxClient({ baseUrl: node.url, token: ALICE }))
        .catch((failure: unknown) => failure)
      expect((error as HeError).code).toBe('NOT_FOUND')
    }
  })

  it('keeps /metrics off the public site: 404 through nginx, served on the node', async () => {
    const response = await fetch(`${nginx.url}/metrics`)
    expect(response.status).toBe(404)
    await response.arrayBuffer()
    expect((await fetch(`${nodes[0]?.url}/metrics`)).status).toBe(200)
  })
})
