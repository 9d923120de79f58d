import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { ServerNode, TempPostgres } from '@sealbox/testkit'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/*
 * The durable store keeps a search's kernel form beside SEAL's bytes, on a real server
 * (one worker thread whose key cache holds one user's keys, the node's bytes cache off,
 * so every worker miss is a store-tier miss) over the file store and a real PostgreSQL.
 * Which form the store served is read from /metrics (`sealbox_key_store_reads_total`):
 * `kernel` is the path with no SEAL load. Every answer is checked against the plaintext
 * scores. An old-format entry is made by a node run with KEY_STORE_KERNEL_FORMS=false
 * (it writes no kernel form), then served by a node with the default.
 */

const ROWS = 600
const DIM = 16
const TENANTS = ['fresh', 'old', 'damaged', 'deleted', 'filler']
const USERS = TENANTS.map((tenant) => ({ tenant, token: `token-of-${tenant}-0123456789abcdefghijkl` }))
const token = (tenant: string) => USERS.find((user) => user.tenant === tenant)?.token as string

/** One user's kernel-form keys (two Galois elements at n=4096): 384 KiB of words and a small header. */
const KERNEL_KEYS_BYTES = 2 * 2 * 2 * 3 * 4096 * 4

const database = syntheticSearchDatabase({ rows: ROWS, dimension: DIM, seed: 1 })

function startNode(store: StoreUnderTest, dataDir: string, extra: Record<string, string> = {}) {
  return ServerNode.start({
    name: `kernel-forms-${store.name}`,
    dataDir,
    env: {
      EXECUTOR: 'pool',
      MODE: 'production',
      TOKENS: USERS.map((user) => `${user.tenant}:${user.token}`).join(','),
      WORKERS: '1',
      SYNTHETIC_ROWS: String(ROWS),
      SYNTHETIC_DIM: String(DIM),
      SEARCH_BABY_STEPS: 'server',
      // One user's kernel-form keys fit, two do not; no bytes tier: a miss reads the store.
      KEY_CACHE_BYTES: String(Math.round(1.5 * KERNEL_KEYS_BYTES)),
      KEY_BYTES_CACHE_BYTES: '0',
      ...(store.url ? { KEY_STORE: store.url } : {}),
      ...extra,
    },
  })
}

interface User {
  client: SealboxClient
  search: PrivateSearchClient
}

async function upload(node: ServerNode, config: SearchConfig, tenant: string): Promise<User> {
  const client = new SealboxClient({ baseUrl: node.url, token: token(tenant) })
  const search = PrivateSearchClient.create(await getHeContext(config.params), config)
  await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
  return { client, search }
}

function reconnect(node: ServerNode, user: User, tenant: string): User {
  return { client: new SealboxClient({ baseUrl: node.url, token: token(tenant) }), search: user.search }
}

async function searchAs(config: SearchConfig, user: User, seed: number): Promise<void> {
  const vector = syntheticSearchQuery(DIM, seed)
  const result = await user.client.search(user.search.encryptQuery(vector), { keySet: 'main' })
  expect([...user.search.decryptScores(result.responses).scores]).toEqual([
    ...plaintextSearchScores(config, database, vector),
  ])
}

/** Counters of /metrics, by name and label text (`form="kernel"`). */
async function counter(node: ServerNode, name: string, label = ''): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  let total = 0
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      if (label === '' || line.includes(label)) total += Number(line.slice(line.lastIndexOf(' ') + 1))
    }
  }
  return total
}

const storeReads = (node: ServerNode, form: 'kernel' | 'seal') =>
  counter(node, 'sealbox_key_store_reads_total', `form="${form}"`)

interface StoreUnderTest {
  name: 'file' | 'postgres'
  /** KEY_STORE for PostgreSQL; undefined for files under the node's DATA_DIR. */
  url: string | undefined
  /** Flips the lowest bit of the last word of a tenant's stored kernel form. */
  damage(node: ServerNode, tenant: string): Promise<void>
  /** Kernel forms stored for a tenant. */
  forms(node: ServerNode, tenant: string): Promise<number>
}

let postgres: TempPostgres
let pool: pg.Pool

const fileStore: StoreUnderTest = {
  name: 'file',
  url: undefined,
  async damage(node, tenant) {
    const blobs = join(node.dataDir, 'keysets', tenant, 'blobs')
    const [name] = (await readdir(blobs)).filter((file) => file.endsWith('.sbkf'))
    const path = join(blobs, name as string)
    const bytes = await readFile(path)
    bytes[bytes.length - 4] = (bytes[bytes.length - 4] as number) ^ 1
    await writeFile(path, bytes)
  },
  async forms(node, tenant) {
    const blobs = join(node.dataDir, 'keysets', tenant, 'blobs')
    return (await readdir(blobs).catch(() => [])).filter((file) => file.endsWith('.sbkf')).length
  },
}

const postgresStore: StoreUnderTest = {
  name: 'postgres',
  url: undefined,
  async damage(_node, tenant) {
    // The last word's low byte, as in the file store: a residue that most likely stays below its prime.
    await pool.query(
      `UPDATE sealbox_key_forms
          SET data = set_byte(data, length(data) - 4, get_byte(data, length(data) - 4) # 1)
        WHERE tenant = $1`,
      [tenant],
    )
  },
  async forms(_node, tenant) {
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sealbox_key_forms WHERE tenant = $1',
      [tenant],
    )
    return rows[0]?.n ?? 0
  },
}

beforeAll(async () => {
  postgres = await TempPostgres.start()
  postgresStore.url = postgres.url()
  pool = new pg.Pool({ connectionString: postgres.url(), max: 2 })
}, 120_000)

afterAll(async () => {
  await pool?.end()
  await postgres?.stop()
})

describe.each([fileStore, postgresStore])('kernel forms in the $name store', (store) => {
  let node: ServerNode
  let config: SearchConfig
  let filler: User
  let dataDir: string

  beforeAll(async () => {
    // The node's DATA_DIR outlives it: the old-format case restarts on the same store.
    dataDir = await mkdtemp(join(tmpdir(), `sealbox-kernel-forms-${store.name}-`))
    node = await startNode(store, dataDir)
    config = verifySearchConfig(await new SealboxClient({ baseUrl: node.url }).searchConfig())
    filler = await upload(node, config, 'filler')
  }, 120_000)

  afterAll(async () => {
    await node?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  /** A search of another user's keys: evicts whatever the one worker held. */
  const evict = (seed: number) => searchAs(config, filler, seed)

  it('an upload stores the kernel form; a store-tier miss copies it, with no SEAL load', async () => {
    const user = await upload(node, config, 'fresh')
    expect(await store.forms(node, 'fresh')).toBe(1)
    const kernelBefore = await storeReads(node, 'kernel')
    const sealBefore = await storeReads(node, 'seal')
    for (let round = 0; round < 3; round++) {
      await evict(100 + round)
      await searchAs(config, user, round)
    }
    // Six store-tier misses (three of the filler's, three of this user's), every one from the kernel form.
    expect((await storeReads(node, 'kernel')) - kernelBefore).toBe(6)
    expect((await storeReads(node, 'seal')) - sealBefore).toBe(0)
    // The tenant's stored bytes are its upload and the kernel form beside it.
    const list = await user.client.listKeySets()
    const upload_ = list.keySets[0]?.bytes as number
    expect(list.usage.bytes).toBeGreaterThan(upload_ + KERNEL_KEYS_BYTES)
    expect(list.usage.bytes).toBeLessThan(upload_ + KERNEL_KEYS_BYTES + 1024)
  })

  it('a damaged kernel form is detected, SEAL serves the exact answer, and the form is rewritten', async () => {
    const user = await upload(node, config, 'damaged')
    await store.damage(node, 'damaged')
    const damagedBefore = await counter(node, 'sealbox_key_store_kernel_forms_damaged_total')
    const sealBefore = await storeReads(node, 'seal')
    await evict(200)
    await searchAs(config, user, 1)
    expect((await counter(node, 'sealbox_key_store_kernel_forms_damaged_total')) - damagedBefore).toBe(1)
    expect((await storeReads(node, 'seal')) - sealBefore).toBe(1)
    // Rewritten on that miss: the next one copies the kernel form again.
    const kernelBefore = await storeReads(node, 'kernel')
    await evict(201)
    await searchAs(config, user, 2)
    expect((await storeReads(node, 'kernel')) - kernelBefore).toBe(2)
    expect(await counter(node, 'sealbox_key_store_kernel_forms_damaged_total')).toBe(damagedBefore + 1)
  })

  it("deleting a key set deletes its kernel form, and the tenant's stored bytes return to zero", async () => {
    const user = await upload(node, config, 'deleted')
    expect(await store.forms(node, 'deleted')).toBe(1)
    await user.client.deleteKeySet('main')
    expect(await store.forms(node, 'deleted')).toBe(0)
    expect((await user.client.listKeySets()).usage.bytes).toBe(0)
  })

  it('a key set stored without a kernel form is served from SEAL, then gains one', async () => {
    // A node that keeps no kernel forms writes the format of a store from before them.
    await node.stop()
    const old = await startNode(store, dataDir, { KEY_STORE_KERNEL_FORMS: 'false' })
    const user = await upload(old, config, 'old')
    await old.stop()
    expect(await store.forms(old, 'old')).toBe(0)
    node = await startNode(store, dataDir)
    const again = reconnect(node, user, 'old')
    filler = reconnect(node, filler, 'filler')
    await searchAs(config, again, 1)
    expect(await storeReads(node, 'seal')).toBe(1)
    expect(await counter(node, 'sealbox_key_store_kernel_forms_written_total', 'reason="miss"')).toBe(1)
    expect(await store.forms(node, 'old')).toBe(1)
    await evict(300)
    await searchAs(config, again, 2)
    expect(await storeReads(node, 'kernel')).toBe(2)
    expect(await storeReads(node, 'seal')).toBe(1)
  })
})

describe('local-mode sessions', () => {
  it('keep no kernel form: their uploads alone fill ANONYMOUS_STORAGE_BYTES, so misses read SEAL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sealbox-kernel-forms-local-'))
    const node = await startNode(fileStore, dataDir, { MODE: 'local', TOKENS: '' })
    try {
      const config = verifySearchConfig(await new SealboxClient({ baseUrl: node.url }).searchConfig())
      const ctx = await getHeContext(config.params)
      const sessions: Array<User & { tenant: string }> = []
      for (let i = 0; i < 2; i++) {
        const { session, client } = await new SealboxClient({ baseUrl: node.url }).createSession()
        const search = PrivateSearchClient.create(ctx, config)
        const { keySet } = await client.putKeySet('main', search.evaluationKeys() as Uint8Array)
        expect((await client.listKeySets()).usage.bytes).toBe(keySet.bytes)
        sessions.push({ client, search, tenant: session.tenant })
      }
      const [a, b] = sessions as [User & { tenant: string }, User & { tenant: string }]
      await searchAs(config, a, 1)
      await searchAs(config, b, 2)
      await searchAs(config, a, 3)
      expect(await storeReads(node, 'seal')).toBe(3)
      expect(await storeReads(node, 'kernel')).toBe(0)
      expect(await counter(node, 'sealbox_key_store_kernel_forms_written_total')).toBe(0)
      expect(await fileStore.forms(node, a.tenant)).toBe(0)
      expect(await fileStore.forms(node, b.tenant)).toBe(0)
    } finally {
      await node.stop()
      await rm(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
