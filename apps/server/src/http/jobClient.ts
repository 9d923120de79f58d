import type { FastifyRequest } from 'fastify'
import type { JobClient } from '../executor/HubSubmitOptions.ts'

/** The client behind a request's job: its address, and whether its tenant is a local-mode session. */
export function jobClient(request: FastifyRequest): JobClient {
  return { address: request.ip, anonymous: request.tenant.kind === 'anonymous' }
}
