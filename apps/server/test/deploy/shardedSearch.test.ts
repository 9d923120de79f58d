import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import { decodeBundle } from '@sealbox/he-core/envelope'
import {
  encodeNpyFloat32,
  PrivateSearchClient,
  parseNpy,
  plaintextSearchScores,
  searchResponseDroppedBits,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  topKIndices,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { runCommand, ServerNode, TempPostgres } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drillNodeEnv } from './drillKit.ts'
import { SHARD_ROWS, type ShardedDeployment, startShardedDeployment } from './shardKit.ts'

/*
 * Issue 28's done-when: two nodes started with SEARCH_SHARD=0/2 and 1/2 on the same .npy
 * file, behind nginx rendered by render.mjs, answer a query through he-core's client at
 * the nginx base URL with the same top 10 as one node holding everything — and every
 * row's exact score equals the plaintext oracle's. Key sets are uploaded once through
 * nginx into the shared PostgreSQL store, where both shards find them.
 */

/** The `sealbox-search` command from source, as the deploy guide's operator runs it. */
const SEALBOX_SEARCH_MAIN = fileURLToPath(
  new URL('../../../../packages/he-core/src/node/sealboxSearchMain.ts', import.meta.url),
)
const ALICE = 'alice-token-0123456789abcdefghijKLMNOPQR'
const DIM = 16

let postgres: TempPostgres
let whole: ServerNode
let sharded: ShardedDeployment
let dir: string
let file: string

beforeAll(async () => {
  postgres = await TempPostgres.start()
  dir = await mkdtemp(join(tmpdir(), 'sealbox-shards-'))
  file = join(dir, 'vectors.npy')
  const database = syntheticSearchDatabase({ rows: SHARD_ROWS, dimension: DIM, seed: 7 })
  await writeFile(file, encodeNpyFloat32(database.vectors, SHARD_ROWS, DIM))
  const env = drillNodeEnv({
    TOKENS: `alice:${ALICE}`,
    KEY_STORE: await postgres.createDatabase('sealbox'),
    DATABASE: file,
  })
  // Shard 1 holds two blocks and splits a query across its two workers, one block each.
  ;[whole, sharded] = await Promise.all([
    ServerNode.start({ name: 'whole', env, readyTimeoutMs: 600_000 }),
    startShardedDeployment({
      shards: 2,
      replicas: 1,
      env,
      shardEnv: (i): Record<string, string> => (i === 1 ? { WORKERS: '2', SEARCH_SPLIT_BLOCKS: '1' } : {}),
    }),
  ])
}, 900_000)

afterAll(async () => {
  await sharded?.stop()
  await whole?.stop()
  await postgres?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('a database in 2 shards behind nginx', () => {
  it('lists every shard and its prefix, each with the whole database’s config id', async () => {
    const map = await (await fetch(`${sharded.nginx.url}/api/v1/search/config`)).json()
    expect(map).toEqual({
      shards: [
        { index: 0, prefix: '/shards/0' },
        { index: 1, prefix: '/shards/1' },
      ],
    })
    const one = await new SealboxClient({ baseUrl: whole.url }).searchConfig()
    const client = new SealboxClient({ baseUrl: sharded.nginx.url })
    const config = await client.searchConfig()
    expect(config.configId).toBe(one.configId)
    expect(config.rows).toBe(SHARD_ROWS)
    expect(config.shard).toBeUndefined()
    // The rule: contiguous blocks of n = 4096 rows; shard 0 block 0, shard 1 blocks 1 and 2.
    expect(config.shards).toEqual([
      { index: 0, count: 2, blocks: { start: 0, end: 1 }, rows: { start: 0, end: 4096 }, prefix: '/shards/0' },
      { index: 1, count: 2, blocks: { start: 1, end: 3 }, rows: { start: 4096, end: SHARD_ROWS }, prefix: '/shards/1' },
    ])
    const shard1 = await new SealboxClient({ baseUrl: `${sharded.nginx.url}/shards/1` }).searchConfig()
    expect(shard1.shard).toEqual({ index: 1, count: 2, blocks: { start: 1, end: 3 }, rows: { start: 4096, end: 9000 } })
    expect(shard1.configId).toBe(one.configId)
  })

  it('answers the same top 10 through he-core’s client as one node holding everything, exact', async () => {
    const viaNginx = new SealboxClient({ baseUrl: sharded.nginx.url, token: ALICE })
    const config = verifySearchConfig(await viaNginx.searchConfig())
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config, { catalog: await viaNginx.searchCatalog() })
    const keys = search.evaluationKeys()
    expect(keys).not.toBeNull()
    // Uploaded once, through nginx to some node: every shard reads it from PostgreSQL.
    await viaNginx.putKeySet('main', keys as Uint8Array)

    const { vectors } = parseNpy(new Uint8Array(await readFile(file)))
    const oracleDb = { rows: SHARD_ROWS, dimension: DIM, vectors, ids: Array.from({ length: SHARD_ROWS }, (_, i) => i) }
    for (const seed of [3, 11]) {
      const vector = syntheticSearchQuery(DIM, seed)
      const query = search.encryptQuery(vector)
      const shardedAnswer = await viaNginx.search(query, { keySet: 'main' })
      expect(shardedAnswer.shardMs).toHaveLength(2)
      const oneAnswer = await new SealboxClient({ baseUrl: whole.url, token: ALICE }).search(query, { keySet: 'main' })
      // The client accepts dropped bits, and nginx passes its header to each shard: every
      // block of the merged response drops the rule's bits of c0, as the one node's do.
      const droppedOfC0 = (responses: Uint8Array[]) =>
        responses.flatMap((response) =>
          decodeBundle(response, { itemKind: 'ciphertext' }).items.map((item) => item.payload[7]),
        )
      const [k0] = searchResponseDroppedBits(ctx, config).bits
      expect(k0).toBeGreaterThan(0)
      expect(new Set(droppedOfC0(shardedAnswer.responses))).toEqual(new Set([k0]))
      expect(droppedOfC0(oneAnswer.responses)).toEqual(droppedOfC0(shardedAnswer.responses))
      // Asked for every bit, every shard answers every bit, and the scores are the same.
      const everyBit = await viaNginx.search(query, { keySet: 'main', droppedBits: false })
      expect(new Set(droppedOfC0(everyBit.responses))).toEqual(new Set([0]))
      expect([...search.decryptScores(everyBit.responses).scores]).toEqual([
        ...search.decryptScores(shardedAnswer.responses).scores,
      ])
      const fromShards = search.rank(shardedAnswer.responses, 10)
      const fromOne = search.rank(oneAnswer.responses, 10)
      expect(fromShards.hits).toEqual(fromOne.hits)
      expect(fromShards.hits.map((hit) => hit.row)).toEqual(fromOne.hits.map((hit) => hit.row))
      // Exact: every row's decrypted score is the plaintext oracle's, and the top 10 is its top 10.
      const oracle = plaintextSearchScores(config, oracleDb, vector)
      expect([...search.decryptScores(shardedAnswer.responses).scores]).toEqual([...oracle])
      expect(fromShards.hits.map((hit) => hit.row)).toEqual(topKIndices(oracle, 10))
      console.info(`sharded top 10 (seed ${seed}): rows ${fromShards.hits.map((hit) => hit.row).join(', ')}`)
    }
    // A client that never read the config: its first search reads the shard map itself
    // instead of posting to the base URL (where nginx would hand it to one shard's node).
    const fresh = new SealboxClient({ baseUrl: sharded.nginx.url, token: ALICE })
    const vector = syntheticSearchQuery(DIM, 5)
    const freshAnswer = await fresh.search(search.encryptQuery(vector), { keySet: 'main' })
    expect(freshAnswer.shardMs).toHaveLength(2)
    expect(fresh.searchShards?.shards.map((shard) => shard.prefix)).toEqual(['/shards/0', '/shards/1'])
    const freshOracle = plaintextSearchScores(config, oracleDb, vector)
    expect([...search.decryptScores(freshAnswer.responses).scores]).toEqual([...freshOracle])
    expect(search.rank(freshAnswer.responses, 10).hits.map((hit) => hit.row)).toEqual(topKIndices(freshOracle, 10))
    // The deploy guide's sealbox-search at the nginx base URL, unchanged: the oracle's top 5.
    const cli = await runCommand(
      process.execPath,
      [
        '--conditions=@sealbox/source',
        SEALBOX_SEARCH_MAIN,
        '--url',
        sharded.nginx.url,
        '--vector',
        vector.join(','),
        '--top',
        '5',
      ],
      { env: { ...process.env, SEALBOX_TOKEN: ALICE } },
    )
    const printed = cli.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'))
    expect(printed.map(([rank]) => Number(rank))).toEqual([1, 2, 3, 4, 5])
    expect(printed.map(([, id]) => Number(id))).toEqual(topKIndices(freshOracle, 5))
  })
})
