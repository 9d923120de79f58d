import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { resolveSearchConfig } from '../search/SearchConfig.ts'
import { DEFAULT_RETRY_POLICY, retryDelayMs } from './retryPolicy.ts'
import { SealboxClient } from './SealboxClient.ts'

/*
 * Which calls SealboxClient sends again, and after how long. The server is a `fetch`
 * that answers a scripted sequence (a real server cannot be told to answer 502 then 200
 * on cue); the deployment drills in apps/server exercise the same retries through nginx.
 */

const health = () => new Response(JSON.stringify({ status: 'ok' }), { status: 200 })
const errorBody = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code, message: code, hint: 'h' } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })

/** A node's search config, which a client reads once before its first search (outside the script). */
const served = {
  ...JSON.parse(JSON.stringify(resolveSearchConfig({ dimension: 16, rows: 300 }))),
  fingerprint: 'f'.repeat(32),
  database: {
    source: { type: 'synthetic', seed: 7, rows: 300, dimension: 16 },
    rows: 300,
    dimension: 16,
    processing: { milliseconds: 1, plaintexts: 8, bytes: 1024, nttForm: true, blocks: [8] },
  },
}

function scripted(replies: Array<() => Response>, retry?: ConstructorParameters<typeof SealboxClient>[0]['retry']) {
  const calls: string[] = []
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname
    if (path === '/api/v1/search/config') {
      return new Response(JSON.stringify(served), { headers: { 'content-type': 'application/json' } })
    }
    calls.push(`${init?.method ?? 'GET'} ${path}`)
    const next = replies.shift()
    if (!next) throw new TypeError('fetch failed')
    return next()
  }
  const client = new SealboxClient({
    baseUrl: 'http://sealbox.test',
    token: 't',
    fetch: fetchImpl,
    retry: retry ?? { baseDelayMs: 1, maxDelayMs: 5 },
  })
  return { client, calls }
}

async function errorOf(promise: Promise<unknown>): Promise<HeError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(HeError)
  return outcome as HeError
}

describe('SealboxClient retries', () => {
  it('sends a read again after 503 + Retry-After and a proxy’s 502 page, then returns the answer', async () => {
    const { client, calls } = scripted([
      () => errorBody(503, 'STORE_UNAVAILABLE', { 'retry-after': '0' }),
      () => new Response('<html>502 Bad Gateway</html>', { status: 502 }),
      health,
    ])
    expect(await client.health()).toEqual({ status: 'ok' })
    expect(calls).toEqual(['GET /healthz', 'GET /healthz', 'GET /healthz'])
  })

  it('retries a search (idempotent POST) after a proxy’s 504 page and a dropped connection', async () => {
    const answer = () => new Response(new Uint8Array(0), { status: 200 })
    const { client, calls } = scripted([() => new Response('gateway timeout', { status: 504 }), answer])
    await client.search(new Uint8Array(0), { keySet: 'main' })
    expect(calls).toEqual(['POST /api/v1/search', 'POST /api/v1/search'])
  })

  it('never repeats a session POST, a job that timed out on the server, or a damaged tenant', async () => {
    const session = scripted([() => errorBody(503, 'OVERLOADED', { 'retry-after': '0' }), health])
    expect((await errorOf(session.client.createSession())).code).toBe('OVERLOADED')
    expect(session.calls).toHaveLength(1)
    const timedOut = scripted([() => errorBody(504, 'TIMEOUT'), health])
    expect((await errorOf(timedOut.client.search(new Uint8Array(0)))).code).toBe('TIMEOUT')
    expect(timedOut.calls).toHaveLength(1)
    const damaged = scripted([() => errorBody(503, 'TENANT_UNAVAILABLE'), health])
    expect((await errorOf(damaged.client.listKeySets())).code).toBe('TENANT_UNAVAILABLE')
    expect(damaged.calls).toHaveLength(1)
  })

  it('gives up after `attempts` tries with the last error; retry: false tries once', async () => {
    const busy = () => errorBody(503, 'OVERLOADED', { 'retry-after': '0' })
    const { client, calls } = scripted([busy, busy, busy, busy, busy])
    expect((await errorOf(client.health())).details?.status).toBe(503)
    expect(calls).toHaveLength(DEFAULT_RETRY_POLICY.attempts)
    const once = scripted([busy, health], false)
    expect((await errorOf(once.client.health())).code).toBe('OVERLOADED')
    expect(once.calls).toHaveLength(1)
  })

  it('stops waiting when the call is aborted: CANCELLED', async () => {
    const controller = new AbortController()
    const { client, calls } = scripted(
      [
        () => {
          queueMicrotask(() => controller.abort())
          return errorBody(503, 'OVERLOADED', { 'retry-after': '60' })
        },
        health,
      ],
      { maxDelayMs: 60_000 },
    )
    expect((await errorOf(client.health({ signal: controller.signal }))).code).toBe('CANCELLED')
    expect(calls).toHaveLength(1)
  })

  it('waits Retry-After (capped, plus jitter below one base delay), else a jittered doubling backoff', () => {
    const policy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 3000 }
    expect(retryDelayMs(policy, 0, 2, () => 0)).toBe(2000)
    expect(retryDelayMs(policy, 0, 2, () => 0.999)).toBeLessThan(2200)
    expect(retryDelayMs(policy, 0, 60, () => 0)).toBe(3000)
    expect([0, 1, 2].map((retry) => retryDelayMs(policy, retry, undefined, () => 0))).toEqual([100, 200, 400])
    expect([0, 1, 2].map((retry) => retryDelayMs(policy, retry, undefined, () => 1))).toEqual([200, 400, 800])
    expect(retryDelayMs(policy, 10, undefined, () => 1)).toBe(3000)
  })

  it('by default waits a proxy’s “no node” Retry-After (fail_timeout + 1 = 6 s) in full, and stays bounded', () => {
    const noNode = 6
    const waits = [0, 1, 2].map((retry) => retryDelayMs(DEFAULT_RETRY_POLICY, retry, noNode, () => 0))
    // Every retry comes after the window nginx named, when it tries the nodes again.
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(noNode * 1000)
    // A server asking for a minute gets the policy's bound, not a minute.
    const longest = retryDelayMs(DEFAULT_RETRY_POLICY, 0, 60, () => 0.999)
    expect(longest).toBeLessThan(DEFAULT_RETRY_POLICY.maxDelayMs + DEFAULT_RETRY_POLICY.baseDelayMs)
  })
})
