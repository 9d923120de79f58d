import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { DOCS_CSP_DIRECTIVES } from './securityHeadersPlugin.ts'

/**
 * The OpenAPI document and its UI at `/docs`, rendered from the routes' zod schemas
 * (he-core's contract). Registered before the routes, whose schemas it collects.
 */
async function docs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'sealbox server',
        version: '1',
        description:
          'Encrypted nearest-neighbour search and HE programs on ciphertexts the server cannot read. Binary bodies are sealbox envelopes (application/octet-stream).',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP_DIRECTIVES })
}

export const docsPlugin = fp(docs, {
  name: 'sealbox-docs',
  fastify: '5.x',
  dependencies: ['sealbox-contract'],
})
