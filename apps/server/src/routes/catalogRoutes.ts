import { SEARCH_CATALOG_MAX_PAGE, SearchCatalogQuerySchema } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import { parseInput } from '../http/parseInput.ts'

/**
 * The public catalog of the served database: row ids and metadata, never vectors.
 * SEARCH.md's privacy model makes them public by design (the server learns nothing
 * from a client holding them); clients name their hits with it after decrypting.
 */
/** Register inside the `/api/v1` plugin. */
export async function catalogRoutes(app: FastifyInstance): Promise<void> {
  const services = app.sealbox
  app.get(
    '/search/catalog',
    {
      // Public by design, like the search config: no bearer token.
      config: { auth: false },
      schema: {
        tags: ['search'],
        summary: 'Ids and metadata of the database rows, paged (no vectors)',
        description: `Query: \`offset\` (default 0), \`limit\` (1–${SEARCH_CATALOG_MAX_PAGE}, default ${SEARCH_CATALOG_MAX_PAGE}). Reply: \`{ configId, total, offset, ids, metadata? }\` (a row without metadata is null). Each page has a strong ETag; send it back in If-None-Match to get 304 instead of the page.`,
        querystring: {
          type: 'object',
          properties: {
            offset: { type: 'integer', minimum: 0 },
            limit: { type: 'integer', minimum: 1, maximum: SEARCH_CATALOG_MAX_PAGE },
          },
        },
      },
    },
    async (request, reply) => {
      const { offset, limit } = parseInput(SearchCatalogQuerySchema, request.query, 'query')
      const catalog = services.catalog()
      const etag = catalog.etag(offset, limit)
      // Clients revalidate every time (no-cache), and a match costs a few bytes.
      reply.header('etag', etag).header('cache-control', 'no-cache')
      const wanted = request.headers['if-none-match']
      if (wanted?.split(',').some((tag) => tag.trim() === etag)) {
        return reply.status(304).send()
      }
      return catalog.page(offset, limit)
    },
  )
}
