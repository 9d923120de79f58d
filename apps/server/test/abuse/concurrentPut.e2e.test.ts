import { TempPostgres } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { searchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, putKeySetRaw } from './abuseHarness.ts'
import { ABUSE_DATABASE, type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Concurrent PUTs: eight concurrent PUTs of a new key-set id were all answered 201 Created
 * (the route decided new vs replaced with a `get` before the write). The store now
 * decides it under the same lock as the write: exactly one 201, the others 200.
 * Against both stores, each behind a real server process.
 */

const FILE = 'concurrentPut.e2e.test.ts'
const PUTS = 8

const STORES = ['file', 'postgres'] as const

describe.each(STORES)('eight concurrent PUTs of a new key-set id, %s store', (store) => {
  let server: AbuseServer
  let postgres: TempPostgres | undefined
  let idle: HealthStats

  beforeAll(async () => {
    const env: Record<string, string> = {}
    if (store === 'postgres') {
      postgres = await TempPostgres.start()
      env.KEY_STORE = await postgres.createDatabase('sealbox')
    }
    server = await spawnAbuseServer(env, { name: `put-${store}` })
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(async () => {
    await server?.stop()
    await postgres?.stop()
  })

  it('answers exactly one 201, the others 200, and stores one key set', async () => {
    const { session, client } = await server.client.createSession()
    const token = session.token
    using side = await searchSide(client, ABUSE_DATABASE)
    const keys = side.keys as Uint8Array
    const put = () => putKeySetRaw(server.url, token, 'raced', keys)
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
    expectHealthy({
      attack: 'concurrent PUTs',
      test: `${FILE} › eight concurrent PUTs of a new key-set id, ${store} store › answers exactly one 201, the others 200, and stores one key set`,
      answer: statuses.join(' '),
      during: health,
      idle,
    })
  })
})
