import type { FastifyInstance } from 'fastify'

/** Local mode: anyone who can reach the server may get an anonymous tenant and its token. */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const { auth } = app.sealbox
  app.post(
    '/session',
    {
      config: { auth: false },
      schema: {
        tags: ['session'],
        summary: 'Get an anonymous bearer token (local mode only)',
        description:
          'Returns a new tenant and its token. Production servers refuse (403): their tokens are configured by the operator (TOKENS).',
      },
    },
    async (request, reply) => {
      // Rate-limited per client address and capped in number (local mode's limits on anonymous tenants).
      const issued = await request.server.anonymousSessions.issue(request.ip)
      reply.status(201)
      return { ...issued, mode: auth.mode }
    },
  )
}
