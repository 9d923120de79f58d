import { API_PREFIX, createSessionRoute } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { routeFromContract } from '../http/routeFromContract.ts'

/** Local mode: anyone who can reach the server may get an anonymous tenant and its token. */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const { auth } = app.sealbox
  app.withTypeProvider<ZodTypeProvider>().route({
    ...routeFromContract(createSessionRoute, API_PREFIX),
    config: { auth: false },
    handler: async (request, reply) => {
      // Rate-limited per client address and capped in number (local mode's limits on anonymous tenants).
      const issued = await request.server.anonymousSessions.issue(request.ip)
      reply.status(201)
      return { ...issued, mode: auth.mode }
    },
  })
}
