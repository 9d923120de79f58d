import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import { decodeBundle, splitEnvelopes } from '@sealbox/he-core/envelope'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchClustering,
  type SearchConfig,
  searchResponseDroppedBits,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * Cluster-private search on a real server (`SEARCH_CLUSTERS=4`): SEARCH.md's flow
 * unchanged (searchConfig → PrivateSearchClient.create → putKeySet → search → rank), every
 * score of the chosen cluster equal to the plaintext oracle, requests and responses for
 * different clusters alike on the wire, and the clustering kept with the processed
 * database: a restart reads both.
 */

const ROWS = 3000
const DIM = 24
const SEED = 9
const ENV = { WORKERS: '1', LOG_LEVEL: 'info', SYNTHETIC_ROWS: String(ROWS), SYNTHETIC_DIM: String(DIM) }
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: SEED })

let node: ServerNode
let dataDir: string
let dir: string

async function served(server: ServerNode) {
  const client = (await new SealboxClient({ baseUrl: server.url }).createSession()).client
  const { database: facts, fingerprint: _fingerprint, ...config } = await client.searchConfig()
  return { client, facts, config: config as SearchConfig & { clustering?: SearchClustering } }
}

function start(data: string, clusters = '4'): Promise<ServerNode> {
  return ServerNode.start({
    name: 'clusters',
    dataDir: data,
    env: { ...ENV, SYNTHETIC_SEED: String(SEED), SEARCH_CLUSTERS: clusters },
  })
}

beforeAll(async () => {
  // Our own DATA_DIR, kept across the restart below.
  dir = await mkdtemp(join(tmpdir(), 'sealbox-clusters-'))
  dataDir = join(dir, 'data')
  node = await start(dataDir)
}, 240_000)
afterAll(async () => {
  await node?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('cluster-private search through the server', () => {
  it('serves the layout and the public clustering with the config; the flow is unchanged and exact', async () => {
    const { client, config } = await served(node)
    expect(config.clusters).toMatchObject({ clusters: 4, rowsPerCluster: 750, chunks: 1 })
    // t chosen from the layout (no SEARCH_PROFILE): larger than exact search's 65537, so a finer scale.
    expect(config.params.coeffModulusBits).toEqual([31, 31, 31])
    expect(config.plainModulus).toBeGreaterThan(65537)
    expect(config.scale).toBeGreaterThan(resolveSearchConfig({ rows: ROWS, dimension: DIM }).scale)
    expect(config.clustering?.members.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, i) => i))
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config, { catalog: { ids: database.ids } })
    await client.putKeySet('search', search.evaluationKeys() as Uint8Array)
    const sizes = new Set<string>()
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const vector = syntheticSearchQuery(DIM, seed)
      const cluster = search.nearestCluster(vector)
      const query = search.encryptQuery(vector)
      const result = await client.search(query, { keySet: 'search' })
      const scores = search.decryptScores(result.responses)
      expect(scores.cluster).toBe(cluster)
      expect(scores.strayNonZeroSlots).toBe(0)
      const oracle = plaintextSearchScores(config, database, vector)
      const members = config.clustering?.members[cluster] ?? []
      for (const row of members) expect(scores.scores[row]).toBe(oracle[row])
      // rank names hits with global row ids, best first, all from the cluster.
      const hits = search.rank(result.responses, 10).hits
      const best = [...members].sort((a, b) => (oracle[b] as number) - (oracle[a] as number) || a - b).slice(0, 10)
      expect(hits.map((hit) => hit.id)).toEqual(best)
      // What crosses the wire says nothing of the cluster: the same sizes and meta for every one.
      const bundle = decodeBundle(query, { itemKind: 'ciphertext' })
      sizes.add(JSON.stringify([query.byteLength, bundle.meta, result.responses.map((r) => r.byteLength)]))
    }
    expect(sizes.size).toBe(1)

    // Dropped bits are the client's choice here too: a request without the header (an older
    // client's, by the wire) gets every bit of every block, and the same exact scores.
    const [k0] = searchResponseDroppedBits(ctx, config).bits
    expect(k0).toBeGreaterThan(0)
    const droppedOfC0 = (responses: Uint8Array[]) =>
      responses.flatMap((response) =>
        decodeBundle(response, { itemKind: 'ciphertext' }).items.map((item) => item.payload[7]),
      )
    const vector = syntheticSearchQuery(DIM, 7)
    const query = search.encryptQuery(vector)
    const accepted = (await client.search(query, { keySet: 'search' })).responses
    expect(new Set(droppedOfC0(accepted))).toEqual(new Set([k0]))
    const old = await fetch(`${node.url}/api/v1/search?keySet=search`, {
      method: 'POST',
      body: query as BodyInit,
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/octet-stream' },
    })
    expect(old.status).toBe(200)
    const full = splitEnvelopes(new Uint8Array(await old.arrayBuffer()))
    expect(new Set(droppedOfC0(full))).toEqual(new Set([0]))
    const scores = search.decryptScores(full)
    const oracle = plaintextSearchScores(config, database, vector)
    for (const row of config.clustering?.members[scores.cluster ?? -1] ?? [])
      expect(scores.scores[row]).toBe(oracle[row])
    expect(scores.cluster).toBe(search.nearestCluster(vector))
    expect(scores.strayNonZeroSlots).toBe(0)
  })

  it('keeps the clustering beside the processed database; a restart reads both', async () => {
    const files = await readdir(join(dataDir, 'search-cache'))
    const clusteringFile = files.find((name) => name.endsWith('.clusters.json'))
    expect(clusteringFile).toBeDefined()
    expect(files.filter((name) => name.endsWith('.sbxpdb'))).toHaveLength(1)
    const before = (await served(node)).config.clustering
    await node.stop()
    node = await start(dataDir)
    const { config, facts } = await served(node)
    expect(config.clustering).toEqual(before)
    expect(facts.processing.cachedBlocks).toBe(config.blocks.length)
    const path = join(dataDir, 'search-cache', clusteringFile as string)
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(before)
    // A damaged file (cut short) is clustered again and rewritten, never used.
    const text = await readFile(path, 'utf8')
    await writeFile(path, text.slice(0, Math.floor(text.length / 2)))
    await node.stop()
    node = await start(dataDir)
    expect((await served(node)).config.clustering).toEqual(before)
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(before)
  })

  it('keys the processed cache on the cluster setting: another C, or exact search, never reuses it', async () => {
    for (const [clusters, files] of [
      ['8', 2],
      ['0', 3],
    ] as const) {
      await node.stop()
      node = await start(dataDir, clusters)
      const { config, facts } = await served(node)
      expect(config.clusters?.clusters).toBe(clusters === '0' ? undefined : 8)
      expect(facts.processing.cachedBlocks).toBe(0)
      const names = await readdir(join(dataDir, 'search-cache'))
      expect(names.filter((name) => name.endsWith('.sbxpdb'))).toHaveLength(files)
    }
  })
})
