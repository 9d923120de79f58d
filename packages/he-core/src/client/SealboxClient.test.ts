import { describe, expect, expectTypeOf, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { resolveSearchConfig } from '../search/SearchConfig.ts'
import { searchCatalogRoute } from './contract/catalogContract.ts'
import { readinessRoute } from './contract/healthContract.ts'
import { getKeySetRoute, type KeySetInfo, putKeySetRoute } from './contract/keySetContract.ts'
import { searchRoute } from './contract/searchContract.ts'
import { SealboxClient } from './SealboxClient.ts'

/*
 * The client against a server that answers what each test says (a `fetch` that returns
 * fixed replies: the only way to make a real server break its own contract). The real
 * server is exercised end to end by apps/server's tests.
 */

interface Seen {
  method: string
  url: string
  headers?: Record<string, string>
}

function serverAnswering(reply: (seen: Seen) => Response): { client: SealboxClient; seen: Seen[] } {
  const seen: Seen[] = []
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = init?.headers as Record<string, string> | undefined
    const request = { method: init?.method ?? 'GET', url: String(input), ...(headers ? { headers } : {}) }
    seen.push(request)
    return reply(request)
  }
  // One reply per call: retries have their own tests (retryPolicy.test.ts).
  const client = new SealboxClient({ baseUrl: 'http://sealbox.test/', token: 't', fetch: fetchImpl, retry: false })
  return { client, seen }
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

const keySet: KeySetInfo = {
  tenant: 'alice',
  id: 'my keys',
  keySetId: '0123456789abcdef0123456789abcdef',
  fingerprint: 'fedcba9876543210fedcba9876543210',
  kinds: ['galoisKeys'],
  galoisElements: [3, 9],
  bytes: 1024,
  sha256: 'a'.repeat(64),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}

async function errorOf(promise: Promise<unknown>): Promise<HeError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(HeError)
  return outcome as HeError
}

describe('SealboxClient and the contract', () => {
  it('returns a reply that matches the contract, on the path the contract names', async () => {
    const { client, seen } = serverAnswering(() => json(200, keySet))
    expect(await client.getKeySet('my keys')).toEqual(keySet)
    expect(seen).toMatchObject([{ method: 'GET', url: 'http://sealbox.test/api/v1/keysets/my%20keys' }])
  })

  it('refuses a reply with a missing field, a wrong type or a field the contract does not have', async () => {
    const { id: _id, ...missing } = keySet
    for (const [body, field] of [
      [missing, 'id'],
      [{ ...keySet, bytes: '1024' }, 'bytes'],
      [{ ...keySet, secretKey: 'oops' }, 'body'],
    ] as const) {
      const { client } = serverAnswering(() => json(200, body))
      const error = await errorOf(client.getKeySet('my keys'))
      expect(error.code).toBe('INTERNAL')
      expect(error.message).toContain('GET /api/v1/keysets/:id: the reply does not match the contract')
      expect(error.message).toContain(`HTTP 200 ${field}:`)
      expect(error.details).toEqual({ contract: true })
    }
  })

  it('refuses a success status the route does not answer with, and a body that is not JSON', async () => {
    // The session route answers 201; a 200 is another server (or version) talking.
    const wrongStatus = serverAnswering(() => json(200, { token: 'x', tenant: 'y', mode: 'local' }))
    expect((await errorOf(wrongStatus.client.createSession())).message).toContain('HTTP 200 is not one of its replies')
    const notJson = serverAnswering(() => new Response('<html>hi</html>', { status: 200 }))
    expect((await errorOf(notJson.client.listKeySets())).message).toContain('the body is not JSON')
    const notDeleted = serverAnswering(() => json(200, {}))
    expect((await errorOf(notDeleted.client.deleteKeySet('k'))).message).toContain('HTTP 200 is not one of its replies')
  })

  it('turns an error reply into an HeError with its code, hint, details and Retry-After', async () => {
    const { client } = serverAnswering(() =>
      json(
        503,
        { error: { code: 'OVERLOADED', message: 'busy', hint: 'Retry shortly.', details: { requestId: 'r1' } } },
        { 'retry-after': '2' },
      ),
    )
    const error = await errorOf(client.listKeySets())
    expect(error.code).toBe('OVERLOADED')
    expect(error.message).toBe('busy')
    expect(error.details).toMatchObject({
      status: 503,
      retryAfterSeconds: 2,
      hint: 'Retry shortly.',
      server: { requestId: 'r1' },
    })
  })

  it('does not take an error body outside the error contract for ours: the status and the text instead', async () => {
    for (const body of [
      { error: { code: 'NO_SUCH_CODE', message: 'x', hint: 'y' } },
      { error: { code: 'NOT_FOUND', message: 'x' } },
      { message: 'Bad Gateway' },
    ]) {
      const { client } = serverAnswering(() => json(502, body))
      const error = await errorOf(client.listKeySets())
      expect(error.code).toBe('INTERNAL')
      expect(error.message).toMatch(/^HTTP 502: /)
    }
  })

  it('checks the readiness reply on 503 as on 200', async () => {
    const warming = { ready: false, executors: [] }
    expect(await serverAnswering(() => json(503, warming)).client.readiness()).toEqual(warming)
    const broken = serverAnswering(() => json(503, { ready: 'no', executors: [] }))
    expect((await errorOf(broken.client.readiness())).message).toContain('HTTP 503 ready:')
  })

  it('types the search config end to end: a resolved config is a valid reply, a loose one is not', async () => {
    const config = resolveSearchConfig({ dimension: 16, rows: 300 })
    const database = {
      source: { type: 'synthetic', seed: 7, rows: 300, dimension: 16 },
      rows: 300,
      dimension: 16,
      processing: { milliseconds: 1, plaintexts: 8, bytes: 1024, nttForm: true, blocks: [8] },
    }
    // What the server sends: the config as JSON (undefined fields dropped) plus its own facts.
    const served = { ...JSON.parse(JSON.stringify(config)), fingerprint: 'f'.repeat(32), database }
    const { client, seen } = serverAnswering(() => json(200, served))
    expect(await client.searchConfig()).toEqual(served)
    expect(seen[0]?.url).toBe('http://sealbox.test/api/v1/search/config')
    const loose = serverAnswering(() => json(200, { ...served, babyStep: 'four' }))
    expect((await errorOf(loose.client.searchConfig())).message).toContain('HTTP 200 babyStep:')
  })

  it('builds the search query string from the contract, after reading the config once', async () => {
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
    const { client, seen } = serverAnswering((request) =>
      request.url.endsWith('/search/config') ? json(200, served) : new Response(new Uint8Array(0), { status: 200 }),
    )
    await client.search(new Uint8Array(0), { keySet: 'k.1' })
    await client.search(new Uint8Array(0))
    // A search never goes out blind: the first reads the config (a node's: no shards), once.
    expect(seen.map((s) => s.url)).toEqual([
      'http://sealbox.test/api/v1/search/config',
      'http://sealbox.test/api/v1/search?keySet=k.1',
      'http://sealbox.test/api/v1/search',
    ])
  })

  it('infers a call from its route: input parts, statuses and bodies come from the contract', async () => {
    const { client, seen } = serverAnswering(() => json(201, keySet, { 'x-sealbox-executor': 'inline' }))
    const reply = await client.call(putKeySetRoute, { params: { id: 'k' }, body: new Uint8Array([1, 2]) })
    expectTypeOf(reply.status).toEqualTypeOf<200 | 201>()
    expectTypeOf(reply.body).toEqualTypeOf<KeySetInfo>()
    expect(reply).toMatchObject({ status: 201, body: keySet, work: { executor: 'inline' } })
    // The binary body goes out as the media type the route consumes, with the client's token.
    expect(seen[0]?.headers).toMatchObject({ 'content-type': 'application/octet-stream', authorization: 'Bearer t' })

    const ready = serverAnswering(() => json(503, { ready: false, executors: [] })).client
    expectTypeOf((await ready.call(readinessRoute)).status).toEqualTypeOf<200 | 503>()
    const search = serverAnswering(() => new Response(new Uint8Array([7]), { status: 200 })).client
    const bytes = await search.call(searchRoute, { body: new Uint8Array(0), query: { keySet: 'k' } })
    expectTypeOf(bytes.body).toExtend<Uint8Array>()
    expect(bytes.body).toEqual(new Uint8Array([7]))

    const typeOnly = async () => {
      // @ts-expect-error a route with a path parameter needs it
      await client.call(getKeySetRoute)
      // @ts-expect-error the search body is bytes, not JSON
      await client.call(searchRoute, { body: { query: 1 } })
      // @ts-expect-error a route without a query string takes none
      await client.call(getKeySetRoute, { params: { id: 'k' }, query: { keySet: 'k' } })
    }
    expect(typeOnly).toBeTypeOf('function')
  })

  it('takes a 304 only as the answer to the ETag it sent', async () => {
    const { client } = serverAnswering(() => new Response(null, { status: 304 }))
    // The generic call hands the 304 over (it is one of the route's replies); the catalog has nothing to reuse.
    expect(await client.call(searchCatalogRoute)).toMatchObject({ status: 304, body: undefined })
    const error = await errorOf(client.searchCatalog())
    expect(error.message).toContain('HTTP 304 to a request without If-None-Match')
  })
})
