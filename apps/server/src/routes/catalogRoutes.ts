import { API_PREFIX, searchCatalogRoute } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { ifNoneMatches } from '../http/ifNoneMatch.ts'
import { routeFromContract } from '../http/routeFromContract.ts'

/**
 * The public catalog of the served database: row ids and metadata, never vectors.
 * SEARCH.md's privacy model makes them public by design (the server learns nothing
 * from a client holding them); clients name their hits with it after decrypting.
 * Register inside the `/api/v1` plugin.
 */
export async function catalogRoutes(app: FastifyInstance): Promise<void> {
  const services = app.sealbox
  app.withTypeProvider<ZodTypeProvider>().route({
    ...routeFromContract(searchCatalogRoute, API_PREFIX),
    // Public by design, like the search config: no bearer token.
    config: { auth: false },
    handler: async (request, reply) => {
      const { offset, limit } = request.query
      const catalog = services.catalog()
      const etag = catalog.etag(offset, limit)
      // Clients revalidate every time (no-cache), and a match costs a few bytes.
      reply.header('etag', etag).header('cache-control', 'no-cache')
      if (ifNoneMatches(request.headers['if-none-match'], etag)) {
        return reply.status(304).send(undefined)
      }
      return catalog.page(offset, limit)
    },
  })
}
