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
 * key caches hold one user's keys each. The search runs in the key-switching kernel, so
 * a worker holds a user's Galois keys as the kernel's words only, and the node's bytes
 * cache keeps that form: an upload converts the keys once, a key set's first search
 * takes them from the bytes cache (no store read), the next one runs where the keys
 * are held (affinity) or, with round-robin, on the other worker from the bytes cache.
 * A bytes cache too small for every user sends an evicted user back to the store once,
 * which refills it. Timing phases are checked by presence only.
 */

const ROWS = 1200
const DIM = 16
const USERS = ['a', 'b', 'c', 'd'].map((name) => ({ tenant: name, token: `token-of-${name}-0123456789abcdefghijkl` }))

let config: SearchConfig
const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 1 })

/** One user's kernel-form keys (two Galois elements at n=4096): 384 KiB of words and a small header. */
const KERNEL_KEYS_BYTES = 2 * 2 * 2 * 3 * 4096 * 4

async function startNode(
  scheduling: 'affinity' | 'round-robin',
  executor = 'pool',
  extra: Record<string, string> = {},
): Promise<ServerNode> {
  return ServerNode.start({
    name: `tiers-${scheduling}-${executor}${Object.keys(extra).length > 0 ? '-small' : ''}`,
    env: {
      EXECUTOR: executor,
      MODE: 'production',
      TOKENS: USERS.map(({ tenant, token }) => `${tenant}:${token}`).join(','),
      WORKERS: '2',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SEARCH_BABY_STEPS: 'server',
      SCHEDULING: scheduling,
      // One user's kernel-form keys fit, two do not.
      KEY_CACHE_BYTES: String(Math.round(1.5 * KERNEL_KEYS_BYTES)),
      ...extra,
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

async function nodeKeyBytes(node: ServerNode): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  return Number(/^sealbox_key_bytes_cache_bytes (\d+)$/m.exec(text)?.[1])
}

let affinity: ServerNode
let roundRobin: ServerNode
let processes: ServerNode

beforeAll(async () => {
  ;[affinity, roundRobin, processes] = await Promise.all([
    startNode('affinity'),
    // A bytes cache that holds one user's kernel form, not two.
    startNode('round-robin', 'pool', { KEY_BYTES_CACHE_BYTES: String(Math.round(1.5 * KERNEL_KEYS_BYTES)) }),
    startNode('round-robin', 'process'),
  ])
  config = verifySearchConfig(await new SealboxClient({ baseUrl: affinity.url }).searchConfig())
})

afterAll(async () => {
  await Promise.all([affinity?.stop(), roundRobin?.stop(), processes?.stop()])
})

describe('key tiers and worker choice', () => {
  it('affinity: the kernel form made at upload serves every first search; then the worker that holds it', async () => {
    const [a, b, c, d] = (await users(affinity)) as [User, User, User, User]
    const first = await searchAs(a, 1)
    expect(tierOf(first)).toBe('bytes')
    expect(first.keydeserialize).toBeGreaterThan(0)
    expect(first.transfer).toBeGreaterThanOrEqual(0)
    expect(tierOf(await searchAs(a, 2))).toBe('worker')
    for (const [i, user] of [b, c, d].entries()) expect(tierOf(await searchAs(user, 10 + i))).toBe('bytes')
    // Two one-user caches, four key sets: every later search finds its keys in a worker
    // or in the node's bytes cache — never in the store.
    const later: string[] = []
    for (let round = 0; round < 2; round++) {
      for (const [i, user] of [a, b, c, d].entries()) later.push(tierOf(await searchAs(user, 100 + 10 * round + i)))
    }
    expect(later).not.toContain('store')
    expect(later).toContain('bytes')
    const counts = await tierCounts(affinity)
    expect(counts.store).toBeUndefined()
    expect((counts.bytes ?? 0) + (counts.worker ?? 0)).toBe(13)
    // The node keeps four users' kernel forms: their words and a header each, no SEAL form.
    const held = await nodeKeyBytes(affinity)
    expect(held).toBeGreaterThanOrEqual(4 * KERNEL_KEYS_BYTES)
    expect(held).toBeLessThan(4 * (KERNEL_KEYS_BYTES + 1024))
  })

  it('round-robin with a one-user bytes cache: an evicted user is read from the store once, then from bytes', async () => {
    const [a] = (await users(roundRobin)) as [User]
    // The three later uploads evicted a's kernel form from the bytes cache.
    expect(tierOf(await searchAs(a, 1))).toBe('store')
    expect(tierOf(await searchAs(a, 2))).toBe('bytes')
    expect(tierOf(await searchAs(a, 3))).toBe('worker')
  })

  it('child processes get the same tiers: bytes from the upload on each process, then held', async () => {
    const [a] = (await users(processes)) as [User]
    expect(tierOf(await searchAs(a, 1))).toBe('bytes')
    expect(tierOf(await searchAs(a, 2))).toBe('bytes')
    expect(tierOf(await searchAs(a, 3))).toBe('worker')
    expect(await tierCounts(processes)).toEqual({ bytes: 2, worker: 1 })
  })
})
