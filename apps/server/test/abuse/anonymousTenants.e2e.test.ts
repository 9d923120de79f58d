import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, putKeySetRaw } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Anonymous tenants: local mode handed out unlimited tenants (300 sessions in 4.6 s, each
 * with its own quota and its own fair-queue slot). Now session creation is a token
 * bucket per client address (SESSION_BURST, SESSION_RATE), anonymous tenants are capped
 * (MAX_ANONYMOUS_TENANTS) and so are their stored bytes together
 * (ANONYMOUS_STORAGE_BYTES). Tenants with configured tokens are not affected.
 */

const FILE = 'anonymousTenants.e2e.test.ts'
const BURST = 10
const TOKEN = randomBytes(24).toString('hex')

interface SessionAnswer {
  status: number
  retryAfter: string | undefined
  code: string | undefined
  token: string | undefined
}

/** `POST /api/v1/session` from a chosen loopback address (all of 127/8 reaches a server on 127.0.0.1). */
function createSession(url: string, localAddress = '127.0.0.1'): Promise<SessionAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL('/api/v1/session', url), { method: 'POST', localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          token?: string
          error?: { code: string }
        }
        const retryAfter = res.headers['retry-after']
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          code: body.error?.code,
          token: body.token,
        })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

let flooded: AbuseServer
let capped: AbuseServer | undefined
let keys: Uint8Array

beforeAll(async () => {
  flooded = await spawnAbuseServer(
    {
      TOKENS: `acme:${TOKEN}`,
      SESSION_BURST: String(BURST),
      // One session a minute after the burst: none comes back during a flood of a few seconds.
      SESSION_RATE: '1',
    },
    { name: 'anon' },
  )
  const side = await flooded.searchSide()
  if (!side.keys) throw new Error('the test config needs Galois keys')
  keys = side.keys
})

afterAll(async () => {
  await flooded?.stop()
  await capped?.stop()
})

describe('anonymous tenants are rate-limited and capped', () => {
  it('300 session requests from one address: only the burst succeeds, the rest 429 with Retry-After', async () => {
    const idle: HealthStats = await idleHealth(flooded.url)
    const { result, health } = await duringAttack(flooded.url, async () => {
      const answers: SessionAnswer[] = []
      // 30 connections at a time, 300 requests: a script's flood, not a thundering herd of sockets.
      for (let batch = 0; batch < 10; batch++) {
        answers.push(...(await Promise.all(Array.from({ length: 30 }, () => createSession(flooded.url)))))
      }
      return answers
    })
    const created = result.filter((answer) => answer.status === 201)
    const limited = result.filter((answer) => answer.status === 429)
    expect(created).toHaveLength(BURST)
    expect(limited).toHaveLength(300 - BURST)
    for (const answer of limited) {
      expect(answer.code).toBe('RATE_LIMITED')
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    expectHealthy({
      attack: 'anonymous tenants',
      test: `${FILE} › 300 session requests from one address`,
      answer: `${created.length}×201, ${limited.length}×429 RATE_LIMITED + Retry-After ${limited[0]?.retryAfter} s`,
      during: health,
      idle,
    })

    // The limit is per address: another client still gets a session, and the burst's tokens work.
    const other = await createSession(flooded.url, '127.0.0.2')
    expect(other.status).toBe(201)
    const listed = await raw(`${flooded.url}/api/v1/keysets`, { token: created[0]?.token as string })
    expect(listed.status).toBe(200)
  })

  it('a configured-token tenant is not affected by the flood', async () => {
    const put = await putKeySetRaw(flooded.url, TOKEN, 'acme-keys', keys)
    expect(put.status).toBe(201)
    const listed = await raw(`${flooded.url}/api/v1/keysets`, { token: TOKEN })
    expect(listed.status).toBe(200)
    expect((listed.json.keySets as unknown[]).length).toBe(1)
  })

  it('caps anonymous tenants’ stored bytes together (ANONYMOUS_STORAGE_BYTES) and their number (MAX_ANONYMOUS_TENANTS)', async () => {
    // Room for one key set of this config, not two.
    const storageBytes = Math.floor(keys.length * 1.5)
    capped = await spawnAbuseServer(
      { TOKENS: `acme:${TOKEN}`, MAX_ANONYMOUS_TENANTS: '3', ANONYMOUS_STORAGE_BYTES: String(storageBytes) },
      { name: 'anon-cap' },
    )
    const url = capped.url
    const first = await createSession(url)
    const second = await createSession(url)
    expect([first.status, second.status]).toEqual([201, 201])

    expect((await putKeySetRaw(url, first.token as string, 'mine', keys)).status).toBe(201)
    // Replacing a key set frees what it replaces: the same upload again still fits.
    expect((await putKeySetRaw(url, first.token as string, 'mine', keys)).status).toBe(200)
    const refused = await putKeySetRaw(url, second.token as string, 'mine', keys)
    expect(refused.status).toBe(413)
    expect(refused.json.error?.code).toBe('QUOTA_EXCEEDED')
    expect(refused.json.error?.message).toMatch(/ANONYMOUS_STORAGE_BYTES/)
    expect(refused.json.error?.message).toContain(String(storageBytes))
    // A configured tenant's storage is its own (TENANT_QUOTA_BYTES), not the anonymous pool's.
    expect((await putKeySetRaw(url, TOKEN, 'acme-keys', keys)).status).toBe(201)
    // Deleting gives the room back.
    const deleted = await raw(`${url}/api/v1/keysets/mine`, { method: 'DELETE', token: first.token as string })
    expect(deleted.status).toBe(204)
    expect((await putKeySetRaw(url, second.token as string, 'mine', keys)).status).toBe(201)

    const idle = await idleHealth(url)
    const { result, health } = await duringAttack(url, async () => {
      const answers: SessionAnswer[] = []
      // Distinct addresses, so the per-address rate limit is not what stops them.
      for (let i = 0; i < 20; i++) answers.push(await createSession(url, `127.0.1.${i + 1}`))
      return answers
    })
    expect(result[0]?.status).toBe(201)
    const full = result.slice(1)
    for (const answer of full) {
      expect(answer.status).toBe(503)
      expect(answer.code).toBe('OVERLOADED')
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    const message = await raw(`${url}/api/v1/session`, { method: 'POST' })
    expect(message.json.error?.message).toMatch(/MAX_ANONYMOUS_TENANTS = 3/)
    expectHealthy({
      attack: 'anonymous tenants',
      test: `${FILE} › caps anonymous tenants’ stored bytes and their number`,
      answer: `storage: 413 QUOTA_EXCEEDED past ${storageBytes} B; tenants: 1×201 then ${full.length}×503 OVERLOADED + Retry-After ${full[0]?.retryAfter} s`,
      during: health,
      idle,
    })

    // Existing tenants keep working, and a configured token is unaffected by the cap.
    expect((await raw(`${url}/api/v1/keysets`, { token: second.token as string })).status).toBe(200)
    expect((await raw(`${url}/api/v1/keysets`, { token: TOKEN })).status).toBe(200)
  })

  it('keeps the count across a restart (the registry is in DATA_DIR)', async () => {
    if (!capped) throw new Error('needs the previous test')
    await capped.stop({ keepData: true })
    capped = await spawnAbuseServer(
      { TOKENS: `acme:${TOKEN}`, MAX_ANONYMOUS_TENANTS: '3' },
      { dataDir: capped.dataDir },
    )
    const again = await createSession(capped.url)
    expect(again.status).toBe(503)
    expect(again.code).toBe('OVERLOADED')
  })
})
