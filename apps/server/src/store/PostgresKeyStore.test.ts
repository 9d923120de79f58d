import { createHash, randomBytes } from 'node:crypto'
import { HeError } from '@sealbox/he-core'
import { TempPostgres, waitFor } from '@sealbox/testkit'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kernelFormName, openKernelFormBlob } from './kernelFormBlob.ts'
import { describeKernelFormContract } from './kernelFormStoreTestKit.ts'
import { describeKeyStoreContract, freshTenant, testFacts } from './keyStoreTestKit.ts'
import { PostgresKeyBlobReader } from './PostgresKeyBlobReader.ts'
import { PostgresKeyStore, type PostgresKeyStoreOptions } from './PostgresKeyStore.ts'
import { migratePostgres } from './postgresSchema.ts'

/*
 * A real PostgreSQL (Debian's `postgresql` package) started on loopback for this file:
 * the shared KeyStore contract, then what only a networked store has to prove — two
 * nodes on one database, limits that hold across nodes, large values, crash safety and
 * an unavailable database.
 */

let cluster: TempPostgres
let url: string
const limits = { quotaBytes: 1 << 30, maxKeySets: 64 }
const stores: PostgresKeyStore[] = []

async function openStore(
  options: Partial<typeof limits> = {},
  maxKeySetBytes?: number,
  storeOptions: PostgresKeyStoreOptions = {},
): Promise<PostgresKeyStore> {
  const store = await PostgresKeyStore.open(
    url,
    { ...limits, ...options },
    {
      ...storeOptions,
      ...(maxKeySetBytes === undefined ? {} : { maxKeySetBytes }),
    },
  )
  stores.push(store)
  return store
}

/** The HeError a promise rejects with, and how long it took to. */
async function failureOf(promise: Promise<unknown>): Promise<{ error: HeError; ms: number }> {
  const started = performance.now()
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(HeError)
  return { error: error as HeError, ms: performance.now() - started }
}

/** A separate connection that holds locks in an open transaction until `release()`. */
async function lockHolder(): Promise<{ client: pg.Client; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('BEGIN')
  return {
    client,
    async release() {
      await client.query('ROLLBACK')
      await client.end()
    },
  }
}

/** Waits until some statement of the store waits on a lock (so the test does not sleep and hope). */
async function untilWaitingOnLock(pattern: string): Promise<void> {
  const watcher = new pg.Client({ connectionString: url })
  await watcher.connect()
  try {
    await waitFor(`a statement like "${pattern}" to wait on a lock`, async () => {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [pattern],
      )
      return (rows[0]?.n ?? 0) >= 1
    })
  } finally {
    await watcher.end()
  }
}

/** Generous upper bound on "answered within its limit" (a busy 2-core machine), far below a hang. */
const SLACK_MS = 5000

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof HeError) return error.code
    throw error
  }
  return 'resolved'
}

beforeAll(async () => {
  cluster = await TempPostgres.start()
  url = await cluster.createDatabase('keystore')
})

afterAll(async () => {
  for (const store of stores) await store.close().catch(() => undefined)
  await cluster?.stop()
})

describeKeyStoreContract('PostgreSQL', () => ({ open: (l) => PostgresKeyStore.open(url, l) }))
describeKernelFormContract('PostgreSQL', () => ({ open: (l) => PostgresKeyStore.open(url, l) }))

describe('PostgresKeyStore schema 1 (before kernel forms)', () => {
  it('upgrades a store of schema 1: its key sets are served, then gain kernel forms', async () => {
    const old = await cluster.createDatabase('schema_one')
    const client = new pg.Client({ connectionString: old })
    await client.connect()
    try {
      await migratePostgres(client, 1)
      const bytes = randomBytes(2000)
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      await client.query('INSERT INTO sealbox_tenants (tenant) VALUES ($1)', ['acme'])
      await client.query(
        `INSERT INTO sealbox_key_sets (tenant, id, sha256, bytes, facts, created_at, updated_at, data)
              VALUES ('acme', 'main', $1, 2000, $2, now(), now(), $3)`,
        [sha256, JSON.stringify(testFacts()), bytes],
      )
      const store = await PostgresKeyStore.open(old, limits)
      stores.push(store)
      const { rows } = await client.query('SELECT version FROM sealbox_schema_version ORDER BY version')
      expect(rows.map((row) => row.version)).toEqual([1, 2])
      const ref = { tenant: 'acme', id: 'main', sha256, bytes: 2000 }
      expect(Buffer.from(await store.read(ref)).equals(bytes)).toBe(true)
      const form = kernelFormName('ab'.repeat(16), [3, 9])
      expect(await store.readKernelForm(ref, form)).toBeUndefined()
      const kernel = randomBytes(700)
      expect(await store.putKernelForm('acme', sha256, { form, bytes: kernel })).toBe(true)
      const blob = await new PostgresKeyBlobReader(old).readKernelForm(ref, form)
      expect(blob && Buffer.from(openKernelFormBlob(blob)).equals(kernel)).toBe(true)
    } finally {
      await client.end()
    }
  })
})

describe('PostgresKeyStore across nodes', () => {
  it('creates the schema once when several nodes open an empty database together', async () => {
    const fresh = await cluster.createDatabase('racing_nodes')
    const opened = await Promise.all(Array.from({ length: 6 }, () => PostgresKeyStore.open(fresh, limits)))
    const client = new pg.Client({ connectionString: fresh })
    await client.connect()
    const { rows } = await client.query('SELECT version FROM sealbox_schema_version ORDER BY version')
    await client.end()
    expect(rows.map((row) => row.version)).toEqual([1, 2])
    await Promise.all(opened.map((store) => store.close()))
  })

  it('shows a key set written on node A to node B at once, and a delete on B to A', async () => {
    const a = await openStore()
    const b = await openStore()
    const tenant = freshTenant()
    const bytes = randomBytes(50_000)
    const { record } = await a.put(tenant, 'k', testFacts(), bytes)
    expect(await b.get(tenant, 'k')).toEqual(record)
    const read = await b.read({ tenant, id: 'k', sha256: record.sha256, bytes: record.bytes })
    expect(Buffer.from(read).equals(bytes)).toBe(true)
    expect(await b.delete(tenant, 'k')).toBe(true)
    expect(await a.get(tenant, 'k')).toBeUndefined()
  })

  it('holds one quota across nodes writing for the same tenant at the same time', async () => {
    const nodes = [await openStore({ quotaBytes: 5000 }), await openStore({ quotaBytes: 5000 })]
    const tenant = freshTenant()
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        codeOf((nodes[i % 2] as PostgresKeyStore).put(tenant, `k${i}`, testFacts(), randomBytes(1000))),
      ),
    )
    expect(results.filter((code) => code === 'resolved').length).toBe(5)
    expect(results.filter((code) => code === 'QUOTA_EXCEEDED').length).toBe(11)
    expect(await (nodes[0] as PostgresKeyStore).usage(tenant)).toBe(5000)
  })

  it('gives a worker its own reader that fetches the exact bytes', async () => {
    const store = await openStore()
    const tenant = freshTenant()
    const bytes = randomBytes(300_000)
    const { record } = await store.put(tenant, 'k', testFacts(), bytes)
    const reader = new PostgresKeyBlobReader(store.location.url)
    try {
      const read = await reader.read({ tenant, id: 'k', sha256: record.sha256, bytes: record.bytes })
      expect(read).toBeInstanceOf(Uint8Array)
      expect(read.byteLength).toBe(bytes.length)
      expect(Buffer.from(read).equals(bytes)).toBe(true)
      const other = freshTenant()
      expect(await codeOf(reader.read({ tenant: other, id: 'k', sha256: record.sha256, bytes: 1 }))).toBe('NOT_FOUND')
    } finally {
      await reader.close()
    }
  })

  it('round-trips a 64 MiB key set byte for byte and refuses one above its limit', async () => {
    const store = await openStore({}, 64 * 2 ** 20)
    const tenant = freshTenant()
    const bytes = randomBytes(64 * 2 ** 20)
    const { record } = await store.put(tenant, 'big', testFacts(), bytes)
    expect(record.bytes).toBe(bytes.length)
    const read = await store.read({ tenant, id: 'big', sha256: record.sha256, bytes: record.bytes })
    expect(createHash('sha256').update(read).digest('hex')).toBe(record.sha256)
    expect(await codeOf(store.put(tenant, 'bigger', testFacts(), randomBytes(64 * 2 ** 20 + 1)))).toBe('LIMIT_EXCEEDED')
    expect(await store.delete(tenant, 'big')).toBe(true)
  })

  it('never hands out a key set whose stored facts do not validate', async () => {
    const store = await openStore()
    const tenant = freshTenant()
    await store.put(tenant, 'k', testFacts(), randomBytes(10))
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(`UPDATE sealbox_key_sets SET facts = '{"kinds": []}' WHERE tenant = $1`, [tenant])
    await client.end()
    expect(await codeOf(store.get(tenant, 'k'))).toBe('INTERNAL')
    expect(await codeOf(store.list(tenant))).toBe('INTERNAL')
  })

  it('refuses a database whose schema is newer than this code', async () => {
    const fresh = await cluster.createDatabase('from_the_future')
    const store = await PostgresKeyStore.open(fresh, limits)
    await store.close()
    const client = new pg.Client({ connectionString: fresh })
    await client.connect()
    await client.query('INSERT INTO sealbox_schema_version (version) VALUES (99)')
    await client.end()
    const error = await PostgresKeyStore.open(fresh, limits).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).message + String((error as HeError).cause)).toMatch(/schema version 99/)
  })
})

describe('PostgresKeyStore when the database fails', () => {
  it('keeps the old version when the database crashes mid-replace, then serves it after restart', async () => {
    const store = await openStore()
    const tenant = freshTenant()
    const oldBytes = randomBytes(1 << 20)
    const { record: old } = await store.put(tenant, 'k', testFacts(), oldBytes)
    // Hold the row so the replace blocks inside its transaction with all its bytes sent.
    const blocker = new pg.Client({ connectionString: url })
    await blocker.connect()
    blocker.on('error', () => undefined)
    await blocker.query('BEGIN')
    await blocker.query('SELECT 1 FROM sealbox_key_sets WHERE tenant = $1 AND id = $2 FOR UPDATE', [tenant, 'k'])
    const replace = codeOf(store.put(tenant, 'k', testFacts(), randomBytes(8 << 20)))
    const watcher = new pg.Client({ connectionString: url })
    await watcher.connect()
    await waitFor('the replace to wait on the row lock', async () => {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO sealbox_key_sets%'`,
      )
      return rows[0]?.n === 1
    })
    await watcher.end()
    await cluster.crash()
    // In flight when the power went: the client is told to retry (503), nothing half-written.
    expect(await replace).toBe('STORE_UNAVAILABLE')
    expect(await codeOf(store.get(tenant, 'k'))).toBe('STORE_UNAVAILABLE')
    await cluster.restart()
    const after = await store.get(tenant, 'k')
    expect(after).toEqual(old)
    const read = await store.read({ tenant, id: 'k', sha256: old.sha256, bytes: old.bytes })
    expect(Buffer.from(read).equals(oldBytes)).toBe(true)
    await blocker.end().catch(() => undefined)
  })
})

describe('PostgresKeyStore limits: a stuck row or a busy pool is a 503, never a hang or a 500', () => {
  it('gives up on a tenant lock after the lock timeout (STORE_UNAVAILABLE, logged); other tenants unaffected', async () => {
    const warnings: string[] = []
    const log = { error: () => {}, warn: (_details: object, message: string) => warnings.push(message) }
    const timeouts = { lockMs: 300, statementMs: 20_000, acquireMs: 5000 }
    const store = await openStore({}, undefined, { timeouts, log })
    const tenant = freshTenant()
    const other = freshTenant()
    const { record } = await store.put(tenant, 'k', testFacts(), randomBytes(100))
    const holder = await lockHolder()
    try {
      await holder.client.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [tenant])
      const { error, ms } = await failureOf(store.put(tenant, 'k2', testFacts(), randomBytes(100)))
      expect(error.code).toBe('STORE_UNAVAILABLE')
      expect(error.details).toMatchObject({ reason: 'lock-timeout', retryAfterSeconds: 2 })
      expect(error.message).toMatch(/KEY_STORE_LOCK_TIMEOUT_MS \(300 ms\)/)
      expect(ms).toBeGreaterThanOrEqual(250)
      expect(ms).toBeLessThan(timeouts.lockMs + SLACK_MS)
      expect(warnings.some((line) => /lock/.test(line))).toBe(true)
      // Reads of the locked tenant and everything of another tenant go on.
      expect(await store.get(tenant, 'k')).toEqual(record)
      expect((await store.put(other, 'k', testFacts(), randomBytes(100))).created).toBe(true)
      expect((await store.list(other)).length).toBe(1)
    } finally {
      await holder.release()
    }
    expect((await store.put(tenant, 'k2', testFacts(), randomBytes(100))).created).toBe(true)
    expect((await store.list(tenant)).map((r) => r.id)).toEqual(['k', 'k2'])
  })

  it('cancels a statement after the statement timeout when lock waits are unlimited', async () => {
    const timeouts = { lockMs: 0, statementMs: 400, acquireMs: 5000 }
    const store = await openStore({}, undefined, { timeouts })
    const tenant = freshTenant()
    await store.put(tenant, 'k', testFacts(), randomBytes(100))
    const holder = await lockHolder()
    try {
      await holder.client.query('LOCK TABLE sealbox_key_sets IN ACCESS EXCLUSIVE MODE')
      const { error, ms } = await failureOf(store.list(tenant))
      expect(error.code).toBe('STORE_UNAVAILABLE')
      expect(error.details).toMatchObject({ reason: 'statement-timeout' })
      expect(error.message).toMatch(/KEY_STORE_STATEMENT_TIMEOUT_MS \(400 ms\)/)
      expect(ms).toBeLessThan(timeouts.statementMs + SLACK_MS)
    } finally {
      await holder.release()
    }
    expect((await store.list(tenant)).length).toBe(1)
  })

  it('answers STORE_UNAVAILABLE when no pool connection frees up within the acquire timeout', async () => {
    const timeouts = { lockMs: 0, statementMs: 0, acquireMs: 300 }
    const store = await openStore({}, undefined, { timeouts, maxConnections: 1 })
    const tenant = freshTenant()
    await store.put(tenant, 'k', testFacts(), randomBytes(100))
    const holder = await lockHolder()
    let stuck: Promise<unknown> | undefined
    try {
      await holder.client.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [tenant])
      // This write holds the pool's only connection while it waits for the lock.
      stuck = store.put(tenant, 'k2', testFacts(), randomBytes(100))
      await untilWaitingOnLock('SELECT 1 FROM sealbox_tenants%')
      const { error, ms } = await failureOf(store.list(freshTenant()))
      expect(error.code).toBe('STORE_UNAVAILABLE')
      expect(error.details).toMatchObject({ reason: 'acquire-timeout' })
      expect(error.message).toMatch(/KEY_STORE_ACQUIRE_TIMEOUT_MS \(300 ms\)/)
      expect(ms).toBeGreaterThanOrEqual(250)
      expect(ms).toBeLessThan(timeouts.acquireMs + SLACK_MS)
    } finally {
      await holder.release()
    }
    // Released: the waiting write goes through and the pool serves again.
    expect(await stuck).toMatchObject({ created: true })
    expect((await store.list(tenant)).length).toBe(2)
  })
})
