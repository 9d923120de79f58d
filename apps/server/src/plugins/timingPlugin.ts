import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServerTiming } from '../http/ServerTiming.ts'

/**
 * `request.timing` on every request, from its first hook, and its phases in the
 * `Server-Timing` header of every answer (errors included, so a client can see where a
 * refused request spent its time). Registered first: later hooks book their phases on it.
 */
async function timing(app: FastifyInstance): Promise<void> {
  app.decorateRequest('timing', null as unknown as ServerTiming)
  app.addHook('onRequest', async (request) => {
    request.timing = new ServerTiming()
  })
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('server-timing', request.timing.header())
    return payload
  })
}

export const timingPlugin = fp(timing, { name: 'sealbox-timing', fastify: '5.x' })
