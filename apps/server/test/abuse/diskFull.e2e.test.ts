import { closeSync, openSync, statfsSync, writeSync } from 'node:fs'
import { mkdir, mkdtemp, rm, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isRoot, runCommand } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, putKeySetRaw } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * A full disk (issue 33, low), on a real full file system: DATA_DIR on a small tmpfs
 * mounted for the test (root only, as CI runs; skipped otherwise), filled to the last
 * block. `POST /session` answered 500 INTERNAL and registered the tenant in memory before
 * the failed write, so failures used up MAX_ANONYMOUS_TENANTS; and `DELETE` answered 503,
 * because even a deletion writes a new index, so a tenant could not free space. Now a
 * session is 503 STORE_UNAVAILABLE + Retry-After and registers nothing, and a deletion
 * gives up the store's spare blocks to write its index, then frees its blob.
 */

const FILE = 'diskFull.e2e.test.ts'
const MiB = 2 ** 20
const MAX_ANONYMOUS_TENANTS = 4

/** Fills the file system of `path` with one file until a write fails for lack of space. */
function fill(path: string): void {
  const fd = openSync(path, 'w')
  try {
    for (const size of [MiB, 64 * 1024, 4096, 512, 1]) {
      const chunk = new Uint8Array(size).fill(1)
      for (;;) {
        try {
          writeSync(fd, chunk)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    closeSync(fd)
  }
}

function freeBytes(path: string): number {
  const stats = statfsSync(path)
  return stats.bavail * stats.bsize
}

describe.skipIf(!isRoot())('a full disk: sessions answer 503 and register nothing; deletions free space', () => {
  let mount: string
  let mounted = false
  let server: AbuseServer
  let idle: HealthStats
  let token: string

  beforeAll(async () => {
    mount = await mkdtemp(join(tmpdir(), 'sealbox-full-disk-'))
    await runCommand('mount', ['-t', 'tmpfs', '-o', 'size=48m,mode=0700', 'tmpfs', mount])
    mounted = true
    const dataDir = join(mount, 'data')
    await mkdir(dataDir)
    server = await spawnAbuseServer(
      { MAX_ANONYMOUS_TENANTS: String(MAX_ANONYMOUS_TENANTS) },
      { name: 'full-disk', dataDir },
    )
    idle = await idleHealth(server.url)
    const session = await raw(`${server.url}/api/v1/session`, { method: 'POST' })
    expect(session.status).toBe(201)
    token = session.json.token as string
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    if (mounted) await runCommand('umount', [mount])
    await rm(mount, { recursive: true, force: true })
  })

  it('answers sessions 503 STORE_UNAVAILABLE, registering nothing, and lets a tenant delete', async () => {
    const side = await server.searchSide()
    const keys = side.keys as Uint8Array
    expect((await putKeySetRaw(server.url, token, 'k', keys)).status).toBe(201)
    const filler = join(mount, 'filler')
    fill(filler)
    const { result, health } = await duringAttack(server.url, async () => {
      const sessions = []
      for (let i = 0; i < 2 * MAX_ANONYMOUS_TENANTS; i++) {
        sessions.push(await raw(`${server.url}/api/v1/session`, { method: 'POST' }))
      }
      const put = await putKeySetRaw(server.url, token, 'k2', keys)
      const freeBefore = freeBytes(mount)
      const deleted = await raw(`${server.url}/api/v1/keysets/k`, { method: 'DELETE', token })
      const freeAfter = freeBytes(mount)
      const list = await raw(`${server.url}/api/v1/keysets`, { token })
      return { sessions, put, deleted, list, freed: freeAfter - freeBefore }
    })
    for (const session of result.sessions) {
      expect([session.status, session.json.error?.code]).toEqual([503, 'STORE_UNAVAILABLE'])
      expect(Number(session.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
    expect([result.put.status, result.put.json.error?.code]).toEqual([503, 'STORE_UNAVAILABLE'])
    expect(result.deleted.status).toBe(204)
    expect(result.list.json.keySets).toEqual([])
    // The key set's blob went back to the file system (less the spare the store keeps again).
    expect(result.freed).toBeGreaterThan(0)

    // With space again: the failed sessions used up no place, so all the places left are there.
    await unlink(filler)
    const later = []
    for (let i = 0; i < MAX_ANONYMOUS_TENANTS; i++)
      later.push((await raw(`${server.url}/api/v1/session`, { method: 'POST' })).status)
    expect(later).toEqual([...Array(MAX_ANONYMOUS_TENANTS - 1).fill(201), 503])
    // And the store was not damaged: the tenant uploads again and its list says so.
    expect((await putKeySetRaw(server.url, token, 'k', keys)).status).toBe(201)
    const list = await raw(`${server.url}/api/v1/keysets`, { token })
    expect((list.json.keySets as Array<{ id: string }>).map((keySet) => keySet.id)).toEqual(['k'])

    expectHealthy({
      attack: 'low: full disk (session, upload, delete)',
      test: FILE,
      answer: `${result.sessions.length} sessions 503 STORE_UNAVAILABLE (none registered: ${MAX_ANONYMOUS_TENANTS - 1} places left after), PUT 503, DELETE ${result.deleted.status} freeing ${Math.round(result.freed / 1024)} KiB (before: session 500 INTERNAL + registered, DELETE 503)`,
      during: health,
      idle,
    })
  })
})
