import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { useContractSchemas } from '../http/routeFromContract.ts'
import { sendError } from '../http/sendError.ts'

/**
 * How routes read requests and answer: their schemas are he-core's HTTP contract (zod),
 * binary bodies arrive as bytes, and every error — thrown by a route, a hook or a
 * validator — is answered by `sendError` as the contract's error body.
 */
async function contract(app: FastifyInstance): Promise<void> {
  useContractSchemas(app)
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body)
  })
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))
}

export const contractPlugin = fp(contract, { name: 'sealbox-contract', fastify: '5.x' })
