import { decodeBundle, encodeBundle, encodeEnvelope, type SealboxClient } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, raw, type SearchSide, searchSide, sleep, startServer, type TestServer } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }

async function metric(server: TestServer, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  return Number(pattern.exec(text)?.[1] ?? 0)
}

function fault(server: TestServer, token: string, name: string, mode?: string) {
  return raw(`${server.url}/api/v1/_faults/${name}`, {
    method: 'POST',
    token,
    ...(mode ? { headers: { 'x-sealbox-executor': mode } } : {}),
  })
}

async function running(server: TestServer, mode = 'pool'): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const state = await server.client.readiness()
    if ((state.executors.find((e) => e.mode === mode)?.running ?? 0) > 0) return
    await sleep(10)
  }
  throw new Error('the job never started')
}

/**
 * A query that passes every check before SEAL (envelope, checksum, ids, labels) and
 * that SEAL then refuses: the compressed payload of its first ciphertext is damaged
 * and the envelope re-sealed with a correct checksum.
 */
function forgedQuery(query: Uint8Array): Uint8Array {
  const bundle = decodeBundle(query)
  const [first, ...rest] = bundle.items
  if (!first) throw new Error('empty query')
  const payload = first.payload.slice()
  for (let i = 64; i < payload.length; i += 97) payload[i] = (payload[i] as number) ^ 0x5a
  const forged = encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: first.fingerprint,
    ...(first.keySetId ? { keySetId: first.keySetId } : {}),
    seeded: first.seeded,
    payload,
    meta: first.meta,
  })
  return encodeBundle([forged, ...rest.map((item) => item.bytes)], {
    ...(bundle.meta.label === undefined ? {} : { label: bundle.meta.label }),
    ...(bundle.meta.labels === undefined ? {} : { labels: bundle.meta.labels }),
  })
}

describe('overload, replacement and SEAL-exception budget (pool, allowing overrides)', () => {
  let server: TestServer
  let side: SearchSide
  let client: SealboxClient
  let token: string

  async function goodSearch(seed: number, mode?: 'pool' | 'process' | 'inline'): Promise<void> {
    const q = side.query(seed)
    const result = await (mode ? client.with({ executor: mode }) : client).search(q.bytes, { keySet: 'k' })
    expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
  }

  beforeAll(async () => {
    server = await startServer({
      WORKERS: 1,
      QUEUE_SIZE: 3,
      TENANT_QUEUE_SIZE: 3,
      REQUEST_TIMEOUT_MS: 4000,
      ALLOW_EXECUTOR_OVERRIDE: true,
      SEAL_ERROR_RECYCLE: 1000,
    })
    side = await searchSide(server.client, database)
    const session = await server.client.createSession()
    client = session.client
    token = session.session.token
    await client.putKeySet('k', side.keys as Uint8Array)
  })
  afterAll(async () => {
    side[Symbol.dispose]()
    await server.close()
  })

  it('answers 503 with Retry-After when the queue is full, and serves the queued work after', async () => {
    const other = await server.tenant()
    await other.putKeySet('k', side.keys as Uint8Array)
    const slow = fault(server, token, 'slow')
    await running(server)
    const queued = [1, 2, 3].map((seed) => client.search(side.query(seed).bytes, { keySet: 'k' }))
    await sleep(50)
    const refused = await errorOf(other.search(side.query(4).bytes, { keySet: 'k' }))
    expect(refused.code).toBe('OVERLOADED')
    expect(refused.details?.status).toBe(503)
    expect(refused.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect((await slow).status).toBe(200)
    for (const result of await Promise.all(queued)) expect(result.responses).toHaveLength(1)
  })

  it('a client that goes away cancels its queued job before it runs', async () => {
    const slow = fault(server, token, 'slow')
    await running(server)
    const abort = new AbortController()
    const cancelled = errorOf(client.search(side.query(12).bytes, { keySet: 'k', signal: abort.signal }))
    await sleep(50)
    expect((await server.client.readiness()).executors.find((e) => e.mode === 'pool')?.queued).toBe(1)
    abort.abort()
    expect((await cancelled).code).toBe('CANCELLED')
    await sleep(50)
    // Gone from the queue before the worker was free: it will never run.
    expect((await server.client.readiness()).executors.find((e) => e.mode === 'pool')?.queued).toBe(0)
    expect((await slow).status).toBe(200)
  })

  it('replaces a worker that crashes: its request gets a 5xx, the next ones succeed', async () => {
    for (const mode of ['pool', 'process'] as const) {
      const before = await metric(
        server,
        new RegExp(`sealbox_worker_replacements_total\\{executor="${mode}",reason="crashed"\\} (\\d+)`),
      )
      const crashed = await fault(server, token, 'crash', mode)
      expect([crashed.status, crashed.json.error?.code]).toEqual([500, 'WORKER_FAILED'])
      await goodSearch(5, mode)
      await goodSearch(6, mode)
      expect(
        await metric(
          server,
          new RegExp(`sealbox_worker_replacements_total\\{executor="${mode}",reason="crashed"\\} (\\d+)`),
        ),
      ).toBe(before + 1)
    }
  })

  it('replaces a worker that runs out of WASM memory (real bad_alloc at the 4 GiB cap)', async () => {
    const oom = await fault(server, token, 'outOfMemory')
    expect([oom.status, oom.json.error?.code]).toEqual([507, 'OUT_OF_MEMORY'])
    await goodSearch(7)
    expect(
      await metric(server, /sealbox_worker_replacements_total\{executor="pool",reason="outOfMemory"\} (\d+)/),
    ).toBe(1)
  })

  it('kills a worker that hangs past the request timeout and serves the next request', async () => {
    const hung = await fault(server, token, 'hang')
    expect([hung.status, hung.json.error?.code]).toEqual([504, 'TIMEOUT'])
    await goodSearch(8)
    expect(await metric(server, /sealbox_worker_replacements_total\{executor="pool",reason="timeout"\} (\d+)/)).toBe(1)
  })

  it('survives 10,000 bad requests that reach SEAL in a row, then answers a good one correctly', async () => {
    const forged = forgedQuery(side.query(9).bytes)
    const first = await raw(`${server.url}/api/v1/search?keySet=k`, {
      method: 'POST',
      token,
      body: forged,
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect([first.status, first.json.error?.code]).toEqual([400, 'INVALID_ENVELOPE'])
    expect(first.json.error?.message).toMatch(/SEAL/)
    const total = 10_000
    const codes = new Map<string, number>()
    let next = 1
    const lane = async () => {
      while (next < total) {
        next++
        const response = await fetch(`${server.url}/api/v1/search?keySet=k`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
          body: forged as unknown as BodyInit,
        })
        const body = (await response.json()) as { error?: { code: string } }
        const key = `${response.status} ${body.error?.code}`
        codes.set(key, (codes.get(key) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({ length: 3 }, lane))
    expect(Object.fromEntries(codes)).toEqual({ '400 INVALID_ENVELOPE': total - 1 })
    const replaced = await metric(
      server,
      /sealbox_worker_replacements_total\{executor="pool",reason="sealExceptions"\} (\d+)/,
    )
    expect(replaced).toBeGreaterThanOrEqual(9)
    expect(await metric(server, /sealbox_worker_seal_exceptions\{executor="pool"\} (\d+)/)).toBeLessThanOrEqual(1000)
    await goodSearch(10)
    await goodSearch(11)
  })
})
