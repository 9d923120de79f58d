import { createHash, randomBytes } from 'node:crypto'
import { HeError } from '@sealbox/he-core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../testing/debianTools.ts'
import { TempPostgres } from '../testing/TempPostgres.ts'
import { describeKeyStoreContract, freshTenant, testFacts } from './keyStoreTestKit.ts'
import { PostgresKeyBlobReader } from './PostgresKeyBlobReader.ts'
import { PostgresKeyStore } from './PostgresKeyStore.ts'

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

async function openStore(options: Partial<typeof limits> = {}, maxKeySetBytes?: number): Promise<PostgresKeyStore> {
  const store = await PostgresKeyStore.open(
    url,
    { ...limits, ...options },
    maxKeySetBytes === undefined ? {} : { maxKeySetBytes },
  )
  stores.push(store)
  return store
}

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

describe('PostgresKeyStore across nodes', () => {
  it('creates the schema once when several nodes open an empty database together', async () => {
    const fresh = await cluster.createDatabase('racing_nodes')
    const opened = await Promise.all(Array.from({ length: 6 }, () => PostgresKeyStore.open(fresh, limits)))
    const client = new pg.Client({ connectionString: fresh })
    await client.connect()
    const { rows } = await client.query('SELECT version FROM sealbox_schema_version ORDER BY version')
    await client.end()
    expect(rows.map((row) => row.version)).toEqual([1])
    await Promise.all(opened.map((store) => store.close()))
  })

  it('shows a key set written on node A to node B at once, and a delete on B to A', async () => {
    const a = await openStore()
    const b = await openStore()
    const tenant = freshTenant()
    const bytes = randomBytes(50_000)
    const record = await a.put(tenant, 'k', testFacts(), bytes)
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
    const record = await store.put(tenant, 'k', testFacts(), bytes)
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
    const record = await store.put(tenant, 'big', testFacts(), bytes)
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
    const old = await store.put(tenant, 'k', testFacts(), oldBytes)
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
    expect(await replace).toBe('OVERLOADED')
    expect(await codeOf(store.get(tenant, 'k'))).toBe('OVERLOADED')
    await cluster.restart()
    const after = await store.get(tenant, 'k')
    expect(after).toEqual(old)
    const read = await store.read({ tenant, id: 'k', sha256: old.sha256, bytes: old.bytes })
    expect(Buffer.from(read).equals(oldBytes)).toBe(true)
    await blocker.end().catch(() => undefined)
  })
})
