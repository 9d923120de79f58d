import type { RouteContract } from '@sealbox/he-core/client'
import Fastify from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { routeFromContract, useContractSchemas } from './routeFromContract.ts'
import { sendError } from './sendError.ts'

/** A route with every part the contract can state (the real routes have no JSON body left but the evaluate one). */
const thingRoute = {
  method: 'POST',
  path: '/api/v1/things/:id',
  tags: ['things'],
  summary: 'A test route',
  params: z.object({ id: z.string().regex(/^[a-z]+$/, 'thing ids are lower-case letters') }).strict(),
  querystring: z.object({ n: z.coerce.number().int().min(1).optional() }).strict(),
  body: z.object({ inputs: z.record(z.string(), z.string().min(1)) }).strict(),
  response: { 200: z.object({ id: z.string(), n: z.number().optional() }).strict() },
} as const satisfies RouteContract

/** A real Fastify app set up as buildServer does: contract schemas, our one error handler. */
async function appWithThingRoute() {
  const app = Fastify()
  useContractSchemas(app)
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))
  await app.register(
    async (api) => {
      api.withTypeProvider<ZodTypeProvider>().route({
        ...routeFromContract(thingRoute, '/api/v1'),
        handler: async (request) => {
          const { n } = request.query
          // n = 13 makes the handler answer outside the contract (a field it does not have).
          return n === 13 ? { id: request.params.id, n, secret: 'kept?' } : { id: request.params.id, n }
        },
      })
    },
    { prefix: '/api/v1' },
  )
  return app
}

const post = (url: string, body: unknown) =>
  ({ method: 'POST', url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) as const

describe('routes from the contract', () => {
  it('validates params, query and body with the contract, coercing the query', async () => {
    const app = await appWithThingRoute()
    const response = await app.inject(post('/api/v1/things/abc?n=2', { inputs: { x: 'AAAA' } }))
    expect([response.statusCode, response.json()]).toEqual([200, { id: 'abc', n: 2 }])
    await app.close()
  })

  it('answers a refused part 400 INVALID_INPUT in our error shape, naming the field', async () => {
    const app = await appWithThingRoute()
    for (const [url, body, message] of [
      ['/api/v1/things/ABC', { inputs: {} }, 'params.id: thing ids are lower-case letters'],
      ['/api/v1/things/abc?n=0', { inputs: {} }, 'query.n: Too small: expected number to be >=1'],
      ['/api/v1/things/abc?debug=1', { inputs: {} }, 'query: Unrecognized key: "debug"'],
      ['/api/v1/things/abc', { inputs: { x: '' } }, 'body.inputs.x: Too small: expected string to have >=1 characters'],
      ['/api/v1/things/abc', { inputs: {}, extra: 1 }, 'body: Unrecognized key: "extra"'],
    ] as const) {
      const response = await app.inject(post(url, body))
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({
        error: { code: 'INVALID_INPUT', message, hint: expect.any(String) },
      })
    }
    await app.close()
  })

  it('refuses to send a reply outside the contract rather than trimming it', async () => {
    const app = await appWithThingRoute()
    const response = await app.inject(post('/api/v1/things/abc?n=13', { inputs: {} }))
    expect(response.statusCode).toBe(500)
    expect(response.json().error.code).toBe('INTERNAL')
    expect(response.body).not.toContain('kept?')
    await app.close()
  })

  it('registers a contract route only under the prefix its path has', () => {
    expect(routeFromContract(thingRoute, '/api/v1').url).toBe('/things/:id')
    expect(() => routeFromContract(thingRoute, '/api/v2')).toThrow(/not under \/api\/v2/)
  })
})
