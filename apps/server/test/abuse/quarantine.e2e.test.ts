import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, putKeySetRaw, searchRaw } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Corrupt tenant index: one tenant's corrupt `index.json` stopped the whole server at start. Now
 * that tenant is quarantined — its calls answer 503 TENANT_UNAVAILABLE, its files are
 * kept byte for byte for the operator, the log says which file once — and every other
 * tenant is served.
 */

const FILE = 'quarantine.e2e.test.ts'
const ALICE = { tenant: 'alice', token: 'alice-3f9a0c27d4e1b85f6a2c90e7d13b4f58' }
const BOB = { tenant: 'bob', token: 'bob-8e1d5c7a9b2f40e6d3c1a8f7b5e9d2c4' }
/** A truncated index, as a disk that filled up mid-write (outside sealbox's atomic rename) leaves it. */
const DAMAGED = '{"version":1,"records":{"main":{"keySetId":"0123'
const ORPHAN_BLOB = `${'e'.repeat(64)}.sbx`

describe('a tenant with a damaged key index is quarantined, not the server', () => {
  let server: AbuseServer
  let indexPath: string
  let idle: HealthStats
  let side: SearchSide

  beforeAll(async () => {
    server = await spawnAbuseServer(
      { MODE: 'production', TOKENS: `${ALICE.tenant}:${ALICE.token},${BOB.tenant}:${BOB.token}` },
      {
        name: 'quarantine',
        async beforeStart(dir) {
          const aliceDir = join(dir, 'keysets', ALICE.tenant)
          indexPath = join(aliceDir, 'index.json')
          await mkdir(join(aliceDir, 'blobs'), { recursive: true })
          await writeFile(indexPath, DAMAGED)
          // A blob the damaged index may have pointed to: the start-up sweep must not delete it.
          await writeFile(join(aliceDir, 'blobs', ORPHAN_BLOB), 'key bytes')
        },
      },
    )
    idle = await idleHealth(server.url)
    side = await server.searchSide(new SealboxClient({ baseUrl: server.url, token: BOB.token }))
  }, 120_000)

  afterAll(() => server?.stop())

  it('answers the quarantined tenant TENANT_UNAVAILABLE and serves everyone else fully', async () => {
    const keys = side.keys as Uint8Array
    const query = side.query(3)
    const { result, health } = await duringAttack(server.url, async () => {
      const alice = {
        list: await raw(`${server.url}/api/v1/keysets`, { token: ALICE.token }),
        get: await raw(`${server.url}/api/v1/keysets/main`, { token: ALICE.token }),
        put: await putKeySetRaw(server.url, ALICE.token, 'main', keys),
        search: await searchRaw(server.url, ALICE.token, 'main', query.bytes),
      }
      // Never retried: everyone else is served fully, at the first try.
      const bob = new SealboxClient({ baseUrl: server.url, token: BOB.token, retry: false })
      const put = await bob.putKeySet('main', keys)
      const list = await bob.listKeySets()
      const searched = await bob.search(query.bytes, { keySet: 'main' })
      return { alice, bob: { put, list, searched } }
    })

    for (const answer of Object.values(result.alice)) {
      expect(answer.status).toBe(503)
      expect(answer.json.error?.code).toBe('TENANT_UNAVAILABLE')
      expect(answer.json.error?.message).toMatch(/key-set index of tenant "alice" is damaged.*contact the operator/)
      // The server's file layout is for the log, not for the client.
      expect(answer.json.error?.message).not.toContain(server.dataDir)
    }
    expect(result.bob.put.replaced).toBe(false)
    expect(result.bob.list.keySets.map((k) => k.id)).toEqual(['main'])
    expect(Array.from(side.search.decryptScores(result.bob.searched.responses).scores)).toEqual(
      Array.from(query.expected),
    )
    expectHealthy({
      attack: 'corrupt tenant index',
      test: `${FILE} › answers the quarantined tenant TENANT_UNAVAILABLE and serves everyone else fully`,
      answer: `alice: ${[...new Set(Object.values(result.alice).map((a) => `${a.status} ${a.json.error?.code}`))].join(', ')}; bob: 201, 200, search ok`,
      during: health,
      idle,
    })
  })

  it('keeps the damaged file and its blobs byte for byte, and logs the path once at error level', async () => {
    expect(await readFile(indexPath, 'utf8')).toBe(DAMAGED)
    expect(await readdir(join(server.dataDir, 'keysets', ALICE.tenant, 'blobs'))).toEqual([ORPHAN_BLOB])
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('is damaged') && line.includes(indexPath))
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 50, tenant: ALICE.tenant, path: indexPath })
  })
})
