import * as client from '@sealbox/he-core/client'
import { KEY_SET_ID, type RouteContract } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, startServer, type TestServer } from './harness.ts'

/*
 * The HTTP contract is written once (he-core's client/contract): the server validates,
 * serializes and documents its routes from it. Here a real server proves the docs list
 * every route of the contract with the contract's schemas, and that a request the
 * contract refuses is answered 400 INVALID_INPUT naming the field.
 */

/** Every route the contract exports (a new one is checked without editing this test). */
const ROUTES = Object.values(client as Record<string, unknown>).filter(
  (value): value is RouteContract =>
    typeof value === 'object' && value !== null && 'method' in value && 'path' in value && 'response' in value,
)

type Operation = {
  parameters?: Array<{ in: string; name: string; schema: { pattern?: string } }>
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>
  security?: unknown[]
}

describe('the HTTP contract, served', () => {
  let server: TestServer
  let token: string
  let paths: Record<string, Record<string, Operation>>

  beforeAll(async () => {
    server = await startServer()
    token = (await server.client.createSession()).session.token
    const spec = await raw(`${server.url}/docs/json`)
    expect(spec.status).toBe(200)
    paths = spec.json.paths as typeof paths
  })
  afterAll(async () => {
    await server.close()
  })

  const operation = (route: RouteContract): Operation | undefined =>
    paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()]

  it('documents every route of the contract at its method and path, with the error reply', () => {
    expect(ROUTES.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['PUT /api/v1/keysets/:id', 'GET /api/v1/search/catalog', 'GET /healthz']),
    )
    for (const route of ROUTES) {
      const documented = operation(route)
      expect(documented, `${route.method} ${route.path}`).toBeDefined()
      for (const status of Object.keys(route.response)) expect(documented?.responses[status]).toBeDefined()
      const error = documented?.responses['4XX']?.content?.['application/json']?.schema
      expect(error?.required, `${route.method} ${route.path}`).toEqual(['error'])
    }
  })

  it('has the contract schemas in the docs: the key-set id pattern, the catalog page, media types, the bearer marker', () => {
    const put = operation(client.putKeySetRoute)
    expect(put?.parameters).toEqual([
      expect.objectContaining({
        in: 'path',
        name: 'id',
        schema: expect.objectContaining({ pattern: KEY_SET_ID.source }),
      }),
    ])
    expect(put?.security).toEqual([{ bearer: [] }])
    const catalog = operation(client.searchCatalogRoute)
    const page = catalog?.responses['200']?.content?.['application/json']?.schema
    expect(page).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['configId', 'total', 'offset', 'ids'],
    })
    expect(Object.keys(page?.properties as object)).toEqual(['configId', 'total', 'offset', 'ids', 'metadata'])
    expect(catalog?.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual([
      'query:offset',
      'query:limit',
    ])
    expect(catalog?.security).toBeUndefined()
    // A binary reply is documented under its media type; the same route's errors stay JSON.
    const search = operation(client.searchRoute)
    expect(Object.keys(search?.responses['200']?.content ?? {})).toEqual(['application/octet-stream'])
    expect(Object.keys(search?.responses['4XX']?.content ?? {})).toEqual(['application/json'])
    // The search's opt-in to dropped low-order bits is documented as the header it is.
    expect(search?.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(
      expect.arrayContaining(['query:keySet', 'header:x-sealbox-dropped-bits']),
    )
  })

  it('answers a request the contract refuses 400 INVALID_INPUT naming the field', async () => {
    const search = (query: string) =>
      raw(`${server.url}/api/v1/search${query}`, {
        method: 'POST',
        token,
        body: new Uint8Array(8),
        headers: { 'content-type': 'application/octet-stream' },
      })
    for (const [answer, message] of [
      [await search('?keySet=../../etc/passwd'), 'query.keySet: keySet must be a key-set id'],
      [await search('?keySet=good&debug=1'), 'query: Unrecognized key: "debug"'],
      [
        await raw(`${server.url}/api/v1/keysets/-dash`, { token }),
        'params.id: key-set ids are 1–64 letters, digits, _ . -, starting with a letter or digit',
      ],
      [
        await raw(`${server.url}/api/v1/search/catalog?limit=0`),
        'query.limit: must be a decimal integer from 1 to 5000 (digits only)',
      ],
    ] as const) {
      expect([answer.status, answer.json.error?.code, answer.json.error?.message]).toEqual([
        400,
        'INVALID_INPUT',
        message,
      ])
    }
  })
})
