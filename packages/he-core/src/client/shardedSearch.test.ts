import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { resolveSearchConfig } from '../search/SearchConfig.ts'
import { searchShardOf } from '../search/searchShard.ts'
import { SealboxClient } from './SealboxClient.ts'

/*
 * How the client reads a sharded deployment's config: a proxy answering the shard map and
 * each shard's node its config (a `fetch` with fixed replies: the only way to make a
 * deployment disagree with itself). The real thing, nginx and shard nodes, runs in
 * apps/server/test/deploy/shardedSearch.test.ts and shardDrills.test.ts.
 */

const config = JSON.parse(JSON.stringify(resolveSearchConfig({ dimension: 16, rows: 9000 })))
const database = {
  source: { type: 'synthetic', seed: 1, rows: 9000, dimension: 16 },
  rows: 9000,
  dimension: 16,
  processing: { milliseconds: 1, plaintexts: 48, bytes: 1024, nttForm: true, blocks: [0] },
}
const map = {
  shards: [
    { index: 0, prefix: '/shards/0' },
    { index: 1, prefix: '/shards/1' },
  ],
}

function nodeConfig(index: number, count = 2, override: Record<string, unknown> = {}) {
  return {
    ...config,
    fingerprint: 'f'.repeat(32),
    database,
    shard: searchShardOf(config, { index, count }),
    ...override,
  }
}

function deployment(shards: Record<string, unknown>, requests: string[] = []): SealboxClient {
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname
    requests.push(`${init?.method ?? 'GET'} ${path}`)
    const body = path === '/api/v1/search/config' ? map : shards[path.replace('/api/v1/search/config', '')]
    const missing = { error: { code: 'NOT_FOUND', message: `no route ${path}`, hint: 'nothing here' } }
    return new Response(JSON.stringify(body ?? missing), {
      status: body ? 200 : 404,
      headers: { 'content-type': 'application/json' },
    })
  }
  return new SealboxClient({ baseUrl: 'http://proxy.test', fetch: fetchImpl, retry: false })
}

async function conflict(client: SealboxClient): Promise<string> {
  const error = await client.searchConfig().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(HeError)
  expect((error as HeError).code).toBe('CONFLICT')
  return (error as HeError).message
}

describe('SealboxClient.searchConfig behind a sharded proxy', () => {
  it('returns the whole database’s config with every shard and remembers the layout', async () => {
    const client = deployment({ '/shards/0': nodeConfig(0), '/shards/1': nodeConfig(1) })
    const served = await client.searchConfig()
    expect(served.configId).toBe(config.configId)
    expect(served.shard).toBeUndefined()
    expect(served.shards?.map((shard) => [shard.prefix, shard.blocks, shard.rows])).toEqual([
      ['/shards/0', { start: 0, end: 1 }, { start: 0, end: 4096 }],
      ['/shards/1', { start: 1, end: 3 }, { start: 4096, end: 9000 }],
    ])
    expect(client.searchShards?.blockCount).toBe(3)
    // Clients made by with() share what was learned.
    expect(client.with({ token: 'other' }).searchShards?.shards).toHaveLength(2)
  })

  it('refuses shards of different databases, a node serving the whole, and blocks left out', async () => {
    expect(
      await conflict(
        deployment({ '/shards/0': nodeConfig(0), '/shards/1': nodeConfig(1, 2, { fingerprint: 'e'.repeat(32) }) }),
      ),
    ).toContain('differs from shard 0')
    const { shard: _shard, ...whole } = nodeConfig(1)
    expect(await conflict(deployment({ '/shards/0': nodeConfig(0), '/shards/1': whole }))).toContain(
      'serves a whole database',
    )
    expect(await conflict(deployment({ '/shards/0': nodeConfig(0, 3), '/shards/1': nodeConfig(1, 3) }))).toContain(
      'serves shard 0/3',
    )
  })

  it('names the shard whose config could not be read', async () => {
    const error = await deployment({ '/shards/0': nodeConfig(0) })
      .searchConfig()
      .then(
        () => undefined,
        (failure: unknown) => failure as HeError,
      )
    expect(error?.code).toBe('NOT_FOUND')
    expect(error?.message).toMatch(/^shard 1 of 2 did not answer/)
    expect(error?.details).toMatchObject({ shard: 1, shards: 2 })
  })
})

describe('SealboxClient.search before searchConfig', () => {
  it('reads the shard map first and sends the query to every shard, never to the base URL', async () => {
    const requests: string[] = []
    const client = deployment({ '/shards/0': nodeConfig(0), '/shards/1': nodeConfig(1) }, requests)
    // The fixed replies have no search route: each shard answers 404, and the call names a shard.
    const error = await client.search(new Uint8Array([1, 2, 3]), { keySet: 'main' }).then(
      () => undefined,
      (failure: unknown) => failure as HeError,
    )
    expect(error).toBeInstanceOf(HeError)
    expect(error?.message).toMatch(/^shard [01] of 2 \(rows \d+–\d+\) did not answer/)
    expect(requests.slice(0, 3).sort()).toEqual([
      'GET /api/v1/search/config',
      'GET /shards/0/api/v1/search/config',
      'GET /shards/1/api/v1/search/config',
    ])
    expect(requests.slice(3).sort()).toEqual(['POST /shards/0/api/v1/search', 'POST /shards/1/api/v1/search'])
    expect(client.searchShards?.shards).toHaveLength(2)
  })

  it('reads the config once: a second search, and one of a with() client, go straight to the shards', async () => {
    const requests: string[] = []
    const client = deployment({ '/shards/0': nodeConfig(0), '/shards/1': nodeConfig(1) }, requests)
    await client.searchConfig()
    requests.length = 0
    await client
      .with({ token: 'other' })
      .search(new Uint8Array([1]), { partial: true })
      .catch(() => undefined)
    expect(requests.every((request) => request.startsWith('POST /shards/'))).toBe(true)
    expect(requests).toHaveLength(2)
  })
})
