import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { authorizationOf } from '../http/authorizationOf.ts'
import { catalogRoutes } from '../routes/catalogRoutes.ts'
import { evaluateRoutes } from '../routes/evaluateRoutes.ts'
import { faultRoutes } from '../routes/faultRoutes.ts'
import { keySetRoutes } from '../routes/keySetRoutes.ts'
import { searchRoutes } from '../routes/searchRoutes.ts'
import { sessionRoutes } from '../routes/sessionRoutes.ts'
import type { Tenant } from '../tenancy/TokenAuthority.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller, from its bearer token: set by the API's `onRequest` hook on every
     * route under `/api/v1` except those with `config: { auth: false }` (which must not read it).
     */
    tenant: Tenant
  }
  interface FastifyContextConfig {
    /** `false`: an anonymous route under `/api/v1` (no bearer token needed). */
    auth?: boolean
  }
}

/** OpenAPI: the marker of routes that need a bearer token. */
const BEARER = [{ bearer: [] }]

/**
 * Everything under `/api/v1` (register it with that prefix). Authentication is one
 * `onRequest` hook here, not a call each handler must remember: it runs before the
 * body is read, so a request without a valid token is refused before a byte of its
 * (possibly 60 MiB) body is buffered. Routes opt out with `config: { auth: false }`
 * (the session route, the search config and its catalog); every other route is marked as needing
 * the bearer token in the OpenAPI docs.
 */
async function api(app: FastifyInstance): Promise<void> {
  const { auth, config } = app.sealbox
  app.decorateRequest('tenant', null as unknown as Tenant)
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === false) return
    // Mutated in place: @fastify/swagger holds this route's schema object and renders it later.
    if (route.schema) route.schema.security = BEARER
    else route.schema = { security: BEARER }
  })
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.auth === false) return
    const started = performance.now()
    try {
      request.tenant = auth.authenticate(authorizationOf(request.raw.rawHeaders))
      // Every later line of this request (errors, the request line) names its tenant.
      request.log = request.log.child({ tenant: request.tenant.id })
    } finally {
      request.timing.add('auth', performance.now() - started)
    }
  })
  await app.register(sessionRoutes)
  await app.register(keySetRoutes)
  await app.register(searchRoutes)
  await app.register(catalogRoutes)
  await app.register(evaluateRoutes)
  if (config.FAULT_INJECTION) await app.register(faultRoutes)
}

/** Encapsulated (its hooks stay under its prefix), with the plugins its routes rely on named. */
export const apiPlugin = fp(api, {
  name: 'sealbox-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['sealbox-services', 'sealbox-timing', 'sealbox-contract', 'sealbox-quotas'],
})
