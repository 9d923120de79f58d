import { exportGaloisKeys, getHeContext, KeySet } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { decodeBundle, encodeBundle } from '@sealbox/he-core/envelope'
import { PrivateSearchClient, resolveSearchConfig } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, raw, type SearchSide, searchSide, startServer, type TestServer } from './harness.ts'

const database = { rows: 300, dim: 6, seed: 7 }

/**
 * Every kind of bad input a client can send — bodies, envelopes, params, key sets, programs,
 * sizes — is answered with a coded 4xx; afterwards the server is up, its memory flat and
 * nothing stored is lost.
 */
describe('bad input', () => {
  let server: TestServer
  let side: SearchSide
  let client: SealboxClient
  let token: string
  let heapBefore: number

  async function heap(): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text()
    return Number(/sealbox_worker_wasm_heap_bytes\{executor="pool"\} (\d+)/.exec(text)?.[1])
  }

  async function goodSearch(seed: number): Promise<void> {
    const q = side.query(seed)
    const result = await client.search(q.bytes, { keySet: 'good' })
    expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
  }

  beforeAll(async () => {
    server = await startServer({ MAX_KEYSET_BYTES: 1_048_576, MAX_REQUEST_BYTES: 1_048_576, MAX_QUERIES_PER_SEARCH: 4 })
    side = await searchSide(server.client, database)
    const session = await server.client.createSession()
    client = session.client
    token = session.session.token
    await client.putKeySet('good', side.keys as Uint8Array)
    await goodSearch(1)
    await goodSearch(2)
    heapBefore = await heap()
    expect(heapBefore).toBeGreaterThan(0)
  })
  afterAll(async () => {
    side[Symbol.dispose]()
    await server.close()
  })

  const search = (body: BodyInit | Uint8Array, query = '?keySet=good', type = 'application/octet-stream') =>
    raw(`${server.url}/api/v1/search${query}`, { method: 'POST', body, token, headers: { 'content-type': type } })
  const put = (body: BodyInit | Uint8Array, id = 'new', type = 'application/octet-stream') =>
    raw(`${server.url}/api/v1/keysets/${id}`, { method: 'PUT', body, token, headers: { 'content-type': type } })
  const evaluate = (body: Uint8Array | string, type = 'application/octet-stream') =>
    raw(`${server.url}/api/v1/evaluate`, { method: 'POST', body, token, headers: { 'content-type': type } })
  /** An evaluate body whose JSON header is `text` as given (a well-formed one comes from `encodeEvaluateRequest`). */
  const evaluateHeader = (text: string) => {
    const json = new TextEncoder().encode(text)
    const body = new Uint8Array(12 + json.length)
    body.set(new TextEncoder().encode('SBXE'), 0)
    body[4] = 1
    new DataView(body.buffer).setUint32(8, json.length, true)
    body.set(json, 12)
    return evaluate(body)
  }

  it('empty bodies, wrong content types, malformed JSON, bad query strings', async () => {
    for (const [response, status, code] of [
      [await search(new Uint8Array(0)), 400, 'INVALID_INPUT'],
      [await put(new Uint8Array(0)), 400, 'INVALID_INPUT'],
      [await search('{"a":1}', '?keySet=good', 'application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [await put('hello', 'new', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [await put('<x/>', 'new', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [await evaluate('{"params": {}}', 'application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [await evaluate(new Uint8Array(0)), 400, 'INVALID_INPUT'],
      [await evaluate('{"params": {}}'), 400, 'INVALID_INPUT'],
      [await evaluateHeader('{"params": '), 400, 'INVALID_INPUT'],
      [await evaluateHeader('[1,2,3]'), 400, 'INVALID_INPUT'],
      [await search(side.query(3).bytes, '?keySet=../../etc/passwd'), 400, 'INVALID_INPUT'],
      [await search(side.query(3).bytes, '?keySet=good&debug=1'), 400, 'INVALID_INPUT'],
      [await put(side.keys as Uint8Array, '-dash'), 400, 'INVALID_INPUT'],
      [await put(side.keys as Uint8Array, '..%2Fescape'), 400, 'INVALID_INPUT'],
      [await raw(`${server.url}/api/v1/nope`, { token }), 404, 'NOT_FOUND'],
    ] as const) {
      expect([response.status, response.json.error?.code], JSON.stringify(response.json)).toEqual([status, code])
      expect(JSON.stringify(response.json)).not.toMatch(/\bat .*\.ts:\d+/)
    }
  })

  it('truncated, corrupted, random and wrong-kind envelopes', async () => {
    const q = side.query(4).bytes
    const flipped = q.slice()
    const middle = Math.floor(q.length / 2)
    flipped[middle] = (flipped[middle] as number) ^ 0xff
    const random = crypto.getRandomValues(new Uint8Array(4096))
    for (const [body, code] of [
      [q.subarray(0, q.length - 100), 'INVALID_ENVELOPE'],
      [q.subarray(0, 30), 'INVALID_ENVELOPE'],
      [flipped, 'ENVELOPE_INTEGRITY'],
      [random, 'INVALID_ENVELOPE'],
      [side.keys as Uint8Array, 'ENVELOPE_KIND_MISMATCH'],
    ] as const) {
      const response = await search(body)
      expect([response.status, response.json.error?.code]).toEqual([400, code])
    }
    for (const [body, code] of [
      [(side.keys as Uint8Array).subarray(0, 500), 'INVALID_ENVELOPE'],
      [random, 'INVALID_ENVELOPE'],
      [q, 'ENVELOPE_KIND_MISMATCH'],
    ] as const) {
      const response = await put(body)
      expect([response.status, response.json.error?.code]).toEqual([400, code])
    }
  })

  it('other params, other key sets, missing keys and missing key sets', async () => {
    const other = resolveSearchConfig({
      params: 'n4096-seal-default',
      dimension: 6,
      rows: 300,
      babySteps: 'server',
      babyStep: 2,
    })
    const otherCtx = await getHeContext(other.params)
    using otherClient = PrivateSearchClient.create(otherCtx, other)
    expect(
      (await errorOf(client.search(otherClient.encryptQuery(side.query(1).vector), { keySet: 'good' }))).code,
    ).toBe('PARAMS_MISMATCH')
    // Same parameters, another secret key: the query does not belong to the stored keys.
    using stranger = PrivateSearchClient.create(side.search.ctx, side.config)
    expect((await errorOf(client.search(stranger.encryptQuery(side.query(1).vector), { keySet: 'good' }))).code).toBe(
      'KEY_SET_MISMATCH',
    )
    expect((await errorOf(client.search(side.query(1).bytes, { keySet: 'never-uploaded' }))).code).toBe('NOT_FOUND')
    expect((await errorOf(client.search(side.query(1).bytes))).code).toBe('MISSING_KEY')
    // Galois keys for step 1 only; the search also needs step 2.
    using partial = KeySet.generate(side.search.ctx, { galois: { steps: [1] } })
    await client.putKeySet('partial', exportGaloisKeys(partial))
    const missing = await errorOf(client.search(side.query(1).bytes, { keySet: 'partial' }))
    expect(missing.code).toBe('MISSING_KEY')
    expect(missing.details?.status).toBe(422)
    await client.deleteKeySet('partial')
  })

  it('programs with an unknown op, too many steps, a name cycle, or parameters above the limit', async () => {
    const params = { scheme: 'bfv', polyModulusDegree: 4096 }
    const base = { version: 1, inputs: [{ name: 'x', kind: 'ciphertext' }], outputs: ['y'] }
    const cases: Array<[unknown, string]> = [
      [{ params, program: { ...base, steps: [{ op: 'teleport', a: 'x', out: 'y' }] }, inputs: {} }, 'INVALID_PROGRAM'],
      [
        {
          params,
          program: {
            ...base,
            steps: Array.from({ length: 100 }, (_, i) => ({ op: 'negate', a: i ? `v${i - 1}` : 'x', out: `v${i}` })),
          },
          inputs: {},
        },
        'LIMIT_EXCEEDED',
      ],
      [
        {
          params,
          program: {
            ...base,
            steps: [
              { op: 'add', a: 'x', b: 'z', out: 'y' },
              { op: 'negate', a: 'y', out: 'z' },
            ],
          },
          inputs: {},
        },
        'INVALID_PROGRAM',
      ],
      [
        {
          params: { scheme: 'bfv', polyModulusDegree: 32768 },
          program: { ...base, steps: [{ op: 'negate', a: 'x', out: 'y' }] },
          inputs: {},
        },
        'LIMIT_EXCEEDED',
      ],
      [{ params: { scheme: 'bfv', polyModulusDegree: 3000 }, program: base, inputs: {} }, 'INVALID_PARAMS'],
      [{ params, program: base, inputs: {}, extra: true }, 'INVALID_INPUT'],
    ]
    for (const [body, code] of cases) {
      const response = await evaluateHeader(JSON.stringify({ ...(body as object), inputs: [] }))
      expect(response.json.error?.code, JSON.stringify(response.json)).toBe(code)
      expect(response.status).toBeGreaterThanOrEqual(400)
      expect(response.status).toBeLessThan(500)
    }
  })

  it('oversize bodies and too many queries in one request', async () => {
    const big = new Uint8Array(1_048_577)
    expect((await put(big)).status).toBe(413)
    expect((await put(big)).json.error?.code).toBe('PAYLOAD_TOO_LARGE')
    expect((await search(big)).json.error?.code).toBe('PAYLOAD_TOO_LARGE')
    const q = side.query(6).bytes
    const five = new Uint8Array(q.length * 5)
    for (let i = 0; i < 5; i++) five.set(q, i * q.length)
    expect((await search(five)).json.error?.code).toBe('LIMIT_EXCEEDED')
    // A query bundle with more ciphertexts than this config's layout has.
    const bundle = decodeBundle(side.query(7).bytes)
    const wrongCount = encodeBundle([...bundle.items, ...bundle.items], {
      ...(bundle.meta.label === undefined ? {} : { label: bundle.meta.label }),
    })
    const response = await search(wrongCount)
    expect([response.status, response.json.error?.code]).toEqual([400, 'INVALID_INPUT'])
  })

  it('after all that: the server is up, nothing stored is lost, a good search is right, and the WASM heap is flat', async () => {
    expect((await raw(`${server.url}/healthz`)).status).toBe(200)
    expect((await client.listKeySets()).keySets.map((k) => k.id)).toEqual(['good'])
    await goodSearch(8)
    await goodSearch(9)
    expect(await heap()).toBe(heapBefore)
  })
})
