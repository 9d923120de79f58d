import underPressure from '@fastify/under-pressure'
import { HeError } from '@sealbox/he-core'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Refuses work while the event loop is overloaded (its delay past
 * MAX_EVENT_LOOP_DELAY_MS): 503 OVERLOADED with Retry-After, as the contract's error body.
 */
async function loadShedding(app: FastifyInstance): Promise<void> {
  await app.register(underPressure, {
    maxEventLoopDelay: app.sealbox.config.MAX_EVENT_LOOP_DELAY_MS,
    retryAfter: 1,
    pressureHandler: (_request, reply) => {
      reply.header('retry-after', '1')
      throw new HeError('OVERLOADED', 'the event loop is overloaded; retry shortly', {
        details: { retryAfterSeconds: 1 },
      })
    },
  })
}

export const loadSheddingPlugin = fp(loadShedding, {
  name: 'sealbox-load-shedding',
  fastify: '5.x',
  dependencies: ['sealbox-services', 'sealbox-contract'],
})
