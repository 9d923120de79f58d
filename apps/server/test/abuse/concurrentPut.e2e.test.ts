import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SealboxClient } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TempPostgres } from '../../src/testing/TempPostgres.ts'
import { raw, type SpawnedServer, searchSide, spawnServer } from '../harness.ts'
import { duringAttack, HEALTHZ_P99_LIMIT_MS, type HealthStats, idleHealth, recordAbuse } from './abuseHarness.ts'

/*
 * Issue 2.12: eight concurrent PUTs of a new key-set id were all answered 201 Created
 * (the route decided new vs replaced with a `get` before the write). The store now
 * decides it under the same lock as the write: exactly one 201, the others 200.
 * Against both stores, each behind a real server process.
 */

const FILE = 'concurrentPut.e2e.test.ts'
const database = { rows: 300, dim: 6, seed: 7 }
const PUTS = 8

const STORES = ['file', 'postgres'] as const

describe.each(STORES)('eight concurrent PUTs of a new key-set id, %s store (2.12)', (store) => {
  let server: SpawnedServer
  let dataDir: string
  let postgres: TempPostgres | undefined
  let idle: HealthStats

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `sealbox-abuse-put-${store}-`))
    const env: Record<string, string> = {
      WORKERS: '1',
      SYNTHETIC_ROWS: String(database.rows),
      SYNTHETIC_DIM: String(database.dim),
      SYNTHETIC_SEED: String(database.seed),
      SEARCH_BABY_STEPS: 'server',
      SEARCH_BABY_STEP: '2',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    }
    if (store === 'postgres') {
      postgres = await TempPostgres.start()
      env.KEY_STORE = await postgres.createDatabase('sealbox')
    }
    server = await spawnServer(env)
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(async () => {
    server?.process.kill('SIGTERM')
    await server?.exited
    await postgres?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('answers exactly one 201, the others 200, and stores one key set', async () => {
    const { session, client } = await new SealboxClient({ baseUrl: server.url }).createSession()
    const token = session.token
    using side = await searchSide(client, database)
    const keys = side.keys as Uint8Array
    const put = () =>
      raw(`${server.url}/api/v1/keysets/raced`, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'application/octet-stream' },
        body: keys,
      })
    const { result, health } = await duringAttack(server.url, () => Promise.all(Array.from({ length: PUTS }, put)))
    const statuses = result.map((answer) => answer.status).sort()
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.every((status) => status === 201 || status === 200 || status === 409)).toBe(true)
    const list = await client.listKeySets()
    expect(list.keySets.map((k) => k.id)).toEqual(['raced'])
    // And the key set works.
    const query = side.query(5)
    const searched = await client.search(query.bytes, { keySet: 'raced' })
    expect(Array.from(side.search.decryptScores(searched.responses).scores)).toEqual(Array.from(query.expected))
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    recordAbuse({
      item: '2.12',
      test: `${FILE} › eight concurrent PUTs of a new key-set id, ${store} store › answers exactly one 201, the others 200, and stores one key set`,
      answer: statuses.join(' '),
      during: health,
      idle,
    })
  })
})
