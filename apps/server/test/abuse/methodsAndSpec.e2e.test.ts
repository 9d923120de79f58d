import { SEARCH_CATALOG_MAX_OFFSET } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, rawRequest } from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Two lows of issue 33. The HTTP QUERY method (RFC 10008) on an operation answered 400
 * ("must provide a Content-Type"), because Fastify checks a QUERY's Content-Type before
 * routing reaches our 405: now a path that exists answers 405 with Allow whatever the
 * method, and one that does not 404. And the OpenAPI spec allowed any catalog `offset`
 * (±2^53) while the server refused a negative one: the spec now states the bounds the
 * server enforces, checked here against the running server's own /docs/json.
 */

const FILE = 'methodsAndSpec.e2e.test.ts'

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: unknown }> }>>
}

describe('QUERY answers 405; the spec states the catalog bounds the server enforces', () => {
  let server: AbuseServer
  let spec: OpenApi
  let idle: HealthStats
  let token: string

  beforeAll(async () => {
    server = await spawnAbuseServer({}, { name: 'methods-spec' })
    spec = (await (await fetch(`${server.url}/docs/json`)).json()) as OpenApi
    token = ((await (await fetch(`${server.url}/api/v1/session`, { method: 'POST' })).json()) as { token: string })
      .token
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('QUERY on every operation of the spec: 405 with the Allow of that path, with or without a body', async () => {
    const operations = Object.entries(spec.paths)
    expect(operations.length).toBeGreaterThanOrEqual(10)
    const { result, health } = await duringAttack(server.url, async () => {
      const seen: Record<string, string> = {}
      for (const [template, methods] of operations) {
        const path = template.replace(/\{[^}]+\}/g, 'k')
        const stated = Object.keys(methods).map((m) => m.toUpperCase())
        for (const variant of ['bare', 'json', 'octets'] as const) {
          const answer = await rawRequest(server.url, {
            method: 'QUERY',
            path,
            headers: {
              authorization: `Bearer ${token}`,
              ...(variant === 'json' ? { 'content-type': 'application/json' } : {}),
              ...(variant === 'octets' ? { 'content-type': 'application/octet-stream' } : {}),
            },
            ...(variant === 'bare' ? {} : { body: variant === 'json' ? '{}' : 'xyz' }),
          })
          const code = (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code
          seen[`${path} ${variant}`] = `${answer.status} ${code}`
          expect(answer.status, `${path} ${variant}`).toBe(405)
          expect(code).toBe('METHOD_NOT_ALLOWED')
          const allow = String(answer.headers.allow).split(', ')
          for (const method of stated) expect(allow).toContain(method)
        }
      }
      const unknown = await rawRequest(server.url, { method: 'QUERY', path: '/api/v1/nothing-here' })
      seen.unknown = String(unknown.status)
      expect(unknown.status).toBe(404)
      return seen
    })
    expectHealthy({
      attack: 'low: QUERY method on the operations',
      test: FILE,
      answer: `${Object.keys(result).length - 1} QUERY requests on ${operations.length} paths: all 405 with Allow, unknown path 404 (before: 400 INVALID_INPUT)`,
      during: health,
      idle,
    })
  })

  it('the catalog offset: the spec states [0, SEARCH_CATALOG_MAX_OFFSET] and the server takes exactly that', async () => {
    const parameter = spec.paths['/api/v1/search/catalog']?.get?.parameters?.find((p) => p.name === 'offset')
    type Branch = { type: string; minimum?: number; maximum?: number; pattern?: string }
    const branches = ((parameter?.schema ?? {}) as { anyOf?: Branch[] }).anyOf ?? []
    const integer = branches.find((branch) => branch.type === 'integer')
    const digits = new RegExp(branches.find((branch) => branch.type === 'string')?.pattern ?? '^$')
    expect(integer).toMatchObject({ minimum: 0, maximum: SEARCH_CATALOG_MAX_OFFSET })
    const { result, health } = await duringAttack(server.url, async () => {
      const answers: Record<string, number> = {}
      for (const offset of [
        -(2 ** 53) + 1,
        -1,
        0,
        1,
        SEARCH_CATALOG_MAX_OFFSET,
        SEARCH_CATALOG_MAX_OFFSET + 1,
        2 ** 53 - 1,
      ]) {
        const answer = await rawRequest(server.url, {
          method: 'GET',
          path: `/api/v1/search/catalog?offset=${offset}&limit=1`,
        })
        answers[String(offset)] = answer.status
        const stated =
          offset >= (integer?.minimum ?? 0) && offset <= (integer?.maximum ?? 0) && digits.test(String(offset))
        expect(answer.status, `offset ${offset}`).toBe(stated ? 200 : 400)
      }
      return answers
    })
    expectHealthy({
      attack: 'low: catalog offset outside the spec',
      test: FILE,
      answer: `spec [0, ${SEARCH_CATALOG_MAX_OFFSET}]; server ${JSON.stringify(result)} (before: spec ±2^53−1, server refused negatives)`,
      during: health,
      idle,
    })
  })
})
