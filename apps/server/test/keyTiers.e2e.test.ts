import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * The key tiers and the worker choice, on a real server with two worker threads whose
 * key caches hold one key set each: a key set's first search reads the store; the next
 * one runs where the keys are deserialized (affinity) or, with round-robin, on the
 * other worker from the node's full-form bytes; after eviction keys come back from the
 * bytes cache, never from the store again. Timing phases are checked by presence only.
 */

const ROWS = 1200
const DIM = 16
const USERS = ['a', 'b', 'c', 'd'].map((name) => ({ tenant: name, token: `token-of-${name}-0123456789abcdefghijkl` }))

let config: SearchConfig
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 1 })

async function startNode(scheduling: 'affinity' | 'round-robin', executor = 'pool'): Promise<ServerNode> {
  return ServerNode.start({
    name: `tiers-${scheduling}-${executor}`,
    env: {
      EXECUTOR: executor,
      MODE: 'production',
      TOKENS: USERS.map(({ tenant, token }) => `${tenant}:${token}`).join(','),
      WORKERS: '2',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SEARCH_BABY_STEPS: 'server',
      SCHEDULING: scheduling,
      // One n=4096 key set with two Galois steps is ~0.75 MiB deserialized, plus ~0.375 MiB
      // of u32 words for the key-switching kernel: one fits, two do not.
      KEY_CACHE_BYTES: String(1536 * 1024),
    },
  })
}

interface User {
  client: SealboxClient
  search: PrivateSearchClient
}

async function users(node: ServerNode): Promise<User[]> {
  const ctx = await getHeContext(config.params)
  const list: User[] = []
  for (const { token } of USERS) {
    const client = new SealboxClient({ baseUrl: node.url, token })
    const search = PrivateSearchClient.create(ctx, config)
    await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
    list.push({ client, search })
  }
  return list
}

async function searchAs(user: User, seed: number) {
  const vector = syntheticSearchQuery(DIM, seed)
  const result = await user.client.search(user.search.encryptQuery(vector), { keySet: 'main' })
  expect([...user.search.decryptScores(result.responses).scores]).toEqual([
    ...plaintextSearchScores(config, database, vector),
  ])
  return result.timing
}

function tierOf(timing: Record<string, number | undefined>): 'worker' | 'bytes' | 'store' {
  if (timing.keyload !== undefined) return 'store'
  return timing.keydeserialize === undefined ? 'worker' : 'bytes'
}

async function tierCounts(node: ServerNode): Promise<Record<string, number>> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  const counts: Record<string, number> = {}
  for (const match of text.matchAll(/sealbox_key_tier_lookups_total\{executor="\w+",tier="(\w+)"\} (\d+)/g)) {
    counts[match[1] as string] = Number(match[2])
  }
  return counts
}

let affinity: ServerNode
let roundRobin: ServerNode
let processes: ServerNode

beforeAll(async () => {
  ;[affinity, roundRobin, processes] = await Promise.all([
    startNode('affinity'),
    startNode('round-robin'),
    startNode('round-robin', 'process'),
  ])
  config = verifySearchConfig(await new SealboxClient({ baseUrl: affinity.url }).searchConfig())
})

afterAll(async () => {
  await Promise.all([affinity?.stop(), roundRobin?.stop(), processes?.stop()])
})

describe('key tiers and worker choice', () => {
  it('affinity: store once per key set, then the worker that holds it, then full-form bytes after eviction', async () => {
    const [a, b, c, d] = (await users(affinity)) as [User, User, User, User]
    const first = await searchAs(a, 1)
    expect(tierOf(first)).toBe('store')
    expect(first.keydeserialize).toBeGreaterThan(0)
    expect(first.transfer).toBeGreaterThanOrEqual(0)
    expect(tierOf(await searchAs(a, 2))).toBe('worker')
    for (const [i, user] of [b, c, d].entries()) expect(tierOf(await searchAs(user, 10 + i))).toBe('store')
    // Two one-key caches, four key sets: every later search finds its keys in a worker or
    // in the node's bytes cache — never in the store again.
    const later: string[] = []
    for (let round = 0; round < 2; round++) {
      for (const [i, user] of [a, b, c, d].entries()) later.push(tierOf(await searchAs(user, 100 + 10 * round + i)))
    }
    expect(later).not.toContain('store')
    expect(later).toContain('bytes')
    const counts = await tierCounts(affinity)
    expect(counts.store).toBe(4)
    expect((counts.bytes ?? 0) + (counts.worker ?? 0)).toBe(9)
  })

  it('round-robin: the next search of the same key set runs on the other worker, from the bytes cache', async () => {
    const [a] = (await users(roundRobin)) as [User]
    expect(tierOf(await searchAs(a, 1))).toBe('store')
    expect(tierOf(await searchAs(a, 2))).toBe('bytes')
    expect(tierOf(await searchAs(a, 3))).toBe('worker')
  })

  it('child processes get the same tiers: store, then the bytes cache on the other process, then held', async () => {
    const [a] = (await users(processes)) as [User]
    expect(tierOf(await searchAs(a, 1))).toBe('store')
    expect(tierOf(await searchAs(a, 2))).toBe('bytes')
    expect(tierOf(await searchAs(a, 3))).toBe('worker')
    expect(await tierCounts(processes)).toEqual({ store: 1, bytes: 1, worker: 1 })
  })
})
