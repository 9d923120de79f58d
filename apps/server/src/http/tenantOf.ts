import type { FastifyRequest } from 'fastify'
import type { Tenant } from '../tenancy/TokenAuthority.ts'

/** The tenant of the request's bearer token (UNAUTHORIZED without a valid one). */
export function tenantOf(request: FastifyRequest): Tenant {
  return request.server.sealbox.auth.authenticate(request.headers.authorization)
}

/** OpenAPI: routes that need a bearer token. */
export const bearer = [{ bearer: [] }]
