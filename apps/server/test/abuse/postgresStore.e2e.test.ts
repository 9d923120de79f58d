import { SealboxClient } from '@sealbox/he-core/client'
import { TempPostgres, waitFor } from '@sealbox/testkit'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Store timeouts: the PostgreSQL store had no statement or lock timeout. With one row held
 * locked by another connection, writes waited on it with their pool connections, and
 * another tenant's list got 500 INTERNAL after pg-pool's 10 s acquire timeout. Now
 * every connection has `lock_timeout` and `statement_timeout`, the pool an acquire
 * timeout, and every store failure is 503 STORE_UNAVAILABLE + Retry-After. A real
 * PostgreSQL, a real server process, and a second connection that holds the locks.
 */

const FILE = 'postgresStore.e2e.test.ts'
const ALICE = { tenant: 'alice', token: 'alice-3f9a0c27d4e1b85f6a2c90e7d13b4f58' }
const BOB = { tenant: 'bob', token: 'bob-8e1d5c7a9b2f40e6d3c1a8f7b5e9d2c4' }
const LOCK_TIMEOUT_MS = 500
const STATEMENT_TIMEOUT_MS = 2000
const ACQUIRE_TIMEOUT_MS = 1000
/** Generous bound on "answered within its limit" on a busy 2-core machine; far below a hang. */
const SLACK_MS = 5000

/** A separate connection holding locks in an open transaction (like a stuck writer or a DBA's session). */
async function lockHolder(
  url: string,
): Promise<{ query(text: string, values?: unknown[]): Promise<unknown>; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('BEGIN')
  return {
    query: (text, values) => client.query(text, values),
    async release() {
      await client.query('ROLLBACK')
      await client.end()
    },
  }
}

type Answer = Awaited<ReturnType<typeof raw>> & { ms: number }

/** A server with production tenants alice and bob on the key store at `keyStore`, with its `limits`. */
function startServer(keyStore: string, name: string, limits: Record<string, number>): Promise<AbuseServer> {
  return spawnAbuseServer(
    {
      MODE: 'production',
      TOKENS: `${ALICE.tenant}:${ALICE.token},${BOB.tenant}:${BOB.token}`,
      KEY_STORE: keyStore,
      ...Object.fromEntries(Object.entries(limits).map(([key, value]) => [key, String(value)])),
    },
    { name },
  )
}

/** Calls `path` with `token`, timing the answer. */
function caller(server: AbuseServer) {
  return (token: string, path: string, init: { method?: string; body?: Uint8Array } = {}) =>
    timed(
      raw(`${server.url}${path}`, {
        token,
        ...(init.method ? { method: init.method } : {}),
        ...(init.body ? { body: init.body, headers: { 'content-type': 'application/octet-stream' } } : {}),
      }),
    )
}

let postgres: TempPostgres

beforeAll(async () => {
  postgres = await TempPostgres.start()
}, 120_000)

afterAll(async () => {
  await postgres?.stop()
})

async function timed(call: Promise<Awaited<ReturnType<typeof raw>>>): Promise<Answer> {
  const started = performance.now()
  const answer = await call
  return { ...answer, ms: performance.now() - started }
}

describe('PostgreSQL store limits: a locked row or table is a quick 503, never a hang or a 500', () => {
  let url: string
  let server: AbuseServer
  let idle: HealthStats
  let side: SearchSide
  let keys: Uint8Array
  const stored: Record<string, string> = {}

  let call: ReturnType<typeof caller>

  beforeAll(async () => {
    url = await postgres.createDatabase('sealbox')
    server = await startServer(url, 'pg', {
      KEY_STORE_LOCK_TIMEOUT_MS: LOCK_TIMEOUT_MS,
      KEY_STORE_STATEMENT_TIMEOUT_MS: STATEMENT_TIMEOUT_MS,
      KEY_STORE_ACQUIRE_TIMEOUT_MS: ACQUIRE_TIMEOUT_MS,
      // Key sets confirmed at setup stay usable through the whole suite's store trouble.
      KEY_STORE_STALE_MS: 600_000,
    })
    call = caller(server)
    side = await server.searchSide(new SealboxClient({ baseUrl: server.url, token: BOB.token }))
    keys = side.keys as Uint8Array
    for (const { tenant, token } of [ALICE, BOB]) {
      const { keySet } = await new SealboxClient({ baseUrl: server.url, token }).putKeySet('main', keys)
      stored[tenant] = keySet.sha256
    }
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(() => server?.stop())

  it("a row held locked for one tenant: its writes answer 503 after the lock timeout, the other tenant's calls succeed", async () => {
    const holder = await lockHolder(url)
    await holder.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [ALICE.tenant])
    await holder.query('SELECT 1 FROM sealbox_key_sets WHERE tenant = $1 FOR UPDATE', [ALICE.tenant])
    const query = side.query(4)
    let result: { alice: Answer[]; bob: Answer[] }
    let health: HealthStats
    try {
      ;({ result, health } = await duringAttack(server.url, async () => {
        // More writes than the pool has connections (8): each gives its connection back at the lock timeout.
        const alice = Promise.all(
          Array.from({ length: 12 }, () => call(ALICE.token, '/api/v1/keysets/main', { method: 'PUT', body: keys })),
        )
        const bob = Promise.all([
          call(BOB.token, '/api/v1/keysets'),
          call(BOB.token, '/api/v1/keysets/main'),
          call(BOB.token, '/api/v1/keysets/second', { method: 'PUT', body: keys }),
          call(BOB.token, '/api/v1/search?keySet=main', { method: 'POST', body: query.bytes }),
        ])
        return { alice: await alice, bob: await bob }
      }))
    } finally {
      await holder.release()
    }
    for (const answer of result.alice) {
      expect(answer.status).toBe(503)
      expect(answer.json.error?.code).toBe('STORE_UNAVAILABLE')
      expect(answer.json.error?.message).toMatch(/KEY_STORE_LOCK_TIMEOUT_MS \(500 ms\)/)
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
    expect(result.bob.map((answer) => answer.status)).toEqual([200, 200, 201, 200])
    for (const answer of result.bob)
      expect(answer.ms).toBeLessThan(ACQUIRE_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + SLACK_MS)
    expectHealthy({
      attack: 'store timeouts',
      test: `${FILE} › a row held locked for one tenant: its writes answer 503 after the lock timeout, the other tenant's calls succeed`,
      answer: `locked tenant's PUTs: 503 STORE_UNAVAILABLE + Retry-After ×${result.alice.length}; other tenant: ${result.bob.map((a) => a.status).join(' ')}`,
      during: health,
      idle,
    })
  })

  it('the key-set table held locked: list and put answer 503 + Retry-After within the lock timeout, get and search of a confirmed key set 200', async () => {
    const holder = await lockHolder(url)
    await holder.query('LOCK TABLE sealbox_key_sets IN ACCESS EXCLUSIVE MODE')
    const query = side.query(6)
    let result: Answer[]
    let health: HealthStats
    try {
      ;({ result, health } = await duringAttack(server.url, () =>
        Promise.all([
          call(BOB.token, '/api/v1/keysets'),
          call(BOB.token, '/api/v1/keysets/main'),
          call(BOB.token, '/api/v1/keysets/third', { method: 'PUT', body: keys }),
          call(BOB.token, '/api/v1/search?keySet=main', { method: 'POST', body: query.bytes }),
          call(ALICE.token, '/api/v1/keysets'),
        ]),
      ))
    } finally {
      await holder.release()
    }
    // A key set the store confirmed before (bob's "main") is still read and searched from
    // memory (KEY_STORE_STALE_MS); what needs the table now (list, put) is refused.
    expect(result.map((answer) => answer.status)).toEqual([503, 200, 503, 200, 503])
    for (const answer of result) {
      if (answer.status === 503) {
        expect(answer.json.error?.code).toBe('STORE_UNAVAILABLE')
        expect(answer.headers.get('retry-after')).toBe('2')
      }
      expect(answer.ms).toBeLessThan(LOCK_TIMEOUT_MS + SLACK_MS)
    }
    expectHealthy({
      attack: 'store timeouts',
      test: `${FILE} › the key-set table held locked: list and put answer 503 + Retry-After within the lock timeout, get and search of a confirmed key set 200`,
      answer: `503 STORE_UNAVAILABLE, Retry-After: 2 ×3, 200 from memory ×2 (slowest ${Math.round(Math.max(...result.map((a) => a.ms)))} ms)`,
      during: health,
      idle,
    })
  })

  it('after the locks are released everything works and nothing was damaged', async () => {
    // No retries: a 503 left over from the outage must show here, not be retried away.
    const alice = new SealboxClient({ baseUrl: server.url, token: ALICE.token, retry: false })
    const bob = new SealboxClient({ baseUrl: server.url, token: BOB.token, retry: false })
    expect((await alice.listKeySets()).keySets.map((k) => [k.id, k.sha256])).toEqual([['main', stored.alice]])
    expect((await bob.listKeySets()).keySets.map((k) => k.id)).toEqual(['main', 'second'])
    expect((await bob.getKeySet('main')).sha256).toBe(stored.bob)
    expect((await alice.putKeySet('after', keys)).replaced).toBe(false)
    for (const client of [alice, bob]) {
      const query = side.query(8)
      const searched = await client.search(query.bytes, { keySet: 'main' })
      expect(Array.from(side.search.decryptScores(searched.responses).scores)).toEqual(Array.from(query.expected))
    }
    // The failures were logged for the operator (the client saw only the coded 503).
    expect(server.output()).toMatch(/key store \(PostgreSQL\).*KEY_STORE_LOCK_TIMEOUT_MS/)
  })
})

describe("a pool taken by one tenant's stuck writes: the other tenant's calls get 503 at the acquire timeout, not 500", () => {
  const ACQUIRE_MS = 500
  let url: string
  let server: AbuseServer
  let idle: HealthStats
  let side: SearchSide
  let keys: Uint8Array
  let call: ReturnType<typeof caller>

  beforeAll(async () => {
    url = await postgres.createDatabase('sealbox_pool')
    // No lock limit: the stuck writes keep their connections, as before the fix.
    server = await startServer(url, 'pg-pool', {
      KEY_STORE_LOCK_TIMEOUT_MS: 0,
      KEY_STORE_ACQUIRE_TIMEOUT_MS: ACQUIRE_MS,
      KEY_STORE_STALE_MS: 600_000,
    })
    call = caller(server)
    side = await server.searchSide(new SealboxClient({ baseUrl: server.url, token: BOB.token }))
    keys = side.keys as Uint8Array
    for (const { token } of [ALICE, BOB])
      await new SealboxClient({ baseUrl: server.url, token }).putKeySet('main', keys)
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(() => server?.stop())

  it("answers the other tenant's list 503 STORE_UNAVAILABLE within the acquire timeout (its confirmed key set 200); all recover after", async () => {
    const holder = await lockHolder(url)
    await holder.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [ALICE.tenant])
    const watcher = new pg.Client({ connectionString: url })
    await watcher.connect()
    let stuck: Promise<Answer[]> | undefined
    let result: Answer[]
    let health: HealthStats
    try {
      ;({ result, health } = await duringAttack(server.url, async () => {
        stuck = Promise.all(
          Array.from({ length: 12 }, () => call(ALICE.token, '/api/v1/keysets/main', { method: 'PUT', body: keys })),
        )
        // Wait (on the database's own view, not a sleep) until the pool's 8 connections all wait on the lock.
        await waitFor('the server pool to be taken by waiting writes', async () => {
          const { rows } = await watcher.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE 'SELECT 1 FROM sealbox_tenants%'`,
          )
          return rows[0]?.n === 8
        })
        return Promise.all([call(BOB.token, '/api/v1/keysets'), call(BOB.token, '/api/v1/keysets/main')])
      }))
    } finally {
      await holder.release()
      await watcher.end()
    }
    // The list needs the pool: 503. The key set's record was confirmed before: served from memory.
    expect(result.map((answer) => answer.status)).toEqual([503, 200])
    const [list] = result as [Answer, Answer]
    expect(list.json.error?.code).toBe('STORE_UNAVAILABLE')
    expect(list.json.error?.message).toMatch(/KEY_STORE_ACQUIRE_TIMEOUT_MS \(500 ms\)/)
    expect(list.headers.get('retry-after')).toBe('2')
    for (const answer of result) expect(answer.ms).toBeLessThan(ACQUIRE_MS + SLACK_MS)
    // Released: the waiting writes finish; those that could not get a connection were told to retry.
    const writes = await (stuck as Promise<Answer[]>)
    expect(writes.every((answer) => answer.status === 200 || answer.json.error?.code === 'STORE_UNAVAILABLE')).toBe(
      true,
    )
    expect(writes.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(8)
    const bob = new SealboxClient({ baseUrl: server.url, token: BOB.token, retry: false })
    expect((await bob.listKeySets()).keySets.map((k) => k.id)).toEqual(['main'])
    expectHealthy({
      attack: 'store timeouts',
      test: `${FILE} › a pool taken by one tenant's stuck writes › answers the other tenant's list 503 STORE_UNAVAILABLE within the acquire timeout (its confirmed key set 200); all recover after`,
      answer: `other tenant: ${result.map((a) => `${a.status} ${a.json.error?.code} in ${Math.round(a.ms)} ms`).join(', ')}`,
      during: health,
      idle,
    })
  })
})
