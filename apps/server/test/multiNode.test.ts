import { getHeContext, HeError } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode, TempNginx, TempPostgres } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * The deployment of deploy/README.md, for real: PostgreSQL and nginx from Debian's
 * packages, two sealbox server processes sharing the PostgreSQL key store behind
 * nginx with consistent hashing on (tenant, key set). Keys uploaded through one node
 * are used by the other; answers equal the plaintext oracle on every path.
 */

const ROWS = 1500
const DIM = 16
const SEED = 7
// nginx hashes each tenant to a node by a consistent hash over the nodes' addresses, whose
// ports are free ports picked afresh every run: with 8 tenants all of them landed on one node
// in about one run in a hundred. With 24 that is below one in a million even on a 40/60 split.
const TENANTS = Array.from({ length: 24 }, (_, i) => ({
  tenant: `tenant${i}`,
  token: `token-of-tenant-${i}-0123456789abcdefghij`,
}))

let postgres: TempPostgres
let nodeA: ServerNode
let nodeB: ServerNode
let nginx: TempNginx
let config: SearchConfig

/** A client that remembers which node answered through nginx (`X-Sealbox-Node`). */
function clientFor(baseUrl: string, tenant: number, seen?: string[]): SealboxClient {
  const token = (TENANTS[tenant] as { token: string }).token
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    // After a failover nginx lists every node it tried ("a, b"): the last one answered.
    seen?.push((response.headers.get('x-sealbox-node') ?? 'direct').split(',').at(-1)?.trim() ?? '')
    return response
  }
  return new SealboxClient({ baseUrl, token, fetch: recording })
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(HeError)
  expect((error as HeError).code).toBe(code)
}

beforeAll(async () => {
  postgres = await TempPostgres.start()
  const keyStore = await postgres.createDatabase('sealbox')
  const env = {
    MODE: 'production',
    TOKENS: TENANTS.map(({ tenant, token }) => `${tenant}:${token}`).join(','),
    KEY_STORE: keyStore,
    WORKERS: '1',
    SYNTHETIC_ROWS: String(ROWS),
    SYNTHETIC_DIM: String(DIM),
    SYNTHETIC_SEED: String(SEED),
    // Server-side baby steps: the search needs Galois keys, which is what this is about.
    SEARCH_BABY_STEPS: 'server',
  }
  ;[nodeA, nodeB] = await Promise.all([
    ServerNode.start({ name: 'node-a', env }),
    ServerNode.start({ name: 'node-b', env }),
  ])
  nginx = await TempNginx.start({ nodes: [nodeA.address, nodeB.address] })
  config = verifySearchConfig(await clientFor(nodeA.url, 0).searchConfig())
})

afterAll(async () => {
  await nginx?.stop()
  await Promise.all([nodeA?.stop(), nodeB?.stop()])
  await postgres?.stop()
})

describe('two sealbox nodes on one PostgreSQL key store behind nginx', () => {
  it('uses keys uploaded through node A on node B and through nginx; every answer equals the oracle', async () => {
    expect(config.galoisSteps.length).toBeGreaterThan(0)
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const keys = search.evaluationKeys()
    if (!keys) throw new Error('the config needs Galois keys')
    const uploaded = await clientFor(nodeA.url, 0).putKeySet('main', keys)
    expect(uploaded.replaced).toBe(false)
    expect((await clientFor(nodeB.url, 0).getKeySet('main')).sha256).toBe(uploaded.keySet.sha256)

    const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: SEED })
    const vector = syntheticSearchQuery(DIM, 3)
    const oracle = plaintextSearchScores(config, database, vector)
    const query = search.encryptQuery(vector)

    const onB = await clientFor(nodeB.url, 0).search(query, { keySet: 'main' })
    expect([...search.decryptScores(onB.responses).scores]).toEqual([...oracle])
    // Node B never had these keys in a worker: its first search loaded them from PostgreSQL.
    expect(onB.timing.keyload ?? 0).toBeGreaterThan(0)

    const seen: string[] = []
    const viaNginx = clientFor(nginx.url, 0, seen)
    // A fresh client reads the search config once (any node answers it); only searches are hashed.
    await viaNginx.searchConfig()
    seen.length = 0
    for (let i = 0; i < 3; i++) {
      const result = await viaNginx.search(query, { keySet: 'main' })
      expect([...search.decryptScores(result.responses).scores]).toEqual([...oracle])
    }
    // Consistent hashing: every request for this key set reached the same node.
    expect(new Set(seen).size).toBe(1)
    expect([nodeA.address, nodeB.address]).toContain(seen[0])
  })

  it('spreads different tenants’ key sets over both nodes and pins each to one', async () => {
    const nodeOf = new Map<number, Set<string>>()
    for (let tenant = 0; tenant < TENANTS.length; tenant++) {
      const seen: string[] = []
      const client = clientFor(nginx.url, tenant, seen)
      for (let i = 0; i < 3; i++) await client.getKeySet('main').catch(() => undefined)
      nodeOf.set(tenant, new Set(seen))
    }
    for (const nodes of nodeOf.values()) expect(nodes.size).toBe(1)
    const used = new Set([...nodeOf.values()].map((nodes) => [...nodes][0]))
    expect(used).toEqual(new Set([nodeA.address, nodeB.address]))
  })

  it('keeps tenants apart across nodes: another tenant cannot use or see the key set', async () => {
    const ctx = await getHeContext(config.params)
    using other = PrivateSearchClient.create(ctx, config)
    const query = other.encryptQuery(syntheticSearchQuery(DIM, 4))
    for (const url of [nodeA.url, nodeB.url, nginx.url]) {
      const client = clientFor(url, 1)
      await expectCode(client.getKeySet('main'), 'NOT_FOUND')
      await expectCode(client.search(query, { keySet: 'main' }), 'NOT_FOUND')
      expect((await client.listKeySets()).keySets).toEqual([])
    }
  })

  it('keeps answering through nginx when the node that holds a key set stops', async () => {
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const seen: string[] = []
    const client = clientFor(nginx.url, 2, seen)
    await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
    const home = seen.at(-1)
    const survivor = home === nodeA.address ? nodeB : nodeA
    const stopped = home === nodeA.address ? nodeA : nodeB
    expect(await stopped.stop()).toBe(0)
    const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: SEED })
    const vector = syntheticSearchQuery(DIM, 5)
    const result = await client.search(search.encryptQuery(vector), { keySet: 'main' })
    expect(seen.at(-1)).toBe(survivor.address)
    expect([...search.decryptScores(result.responses).scores]).toEqual([
      ...plaintextSearchScores(config, database, vector),
    ])
  })
})
