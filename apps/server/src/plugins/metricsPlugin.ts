import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { logRequestLine } from '../http/logRequestLine.ts'

/**
 * What every answered request leaves behind: its sample in the Prometheus metrics (by
 * route pattern, method, status and phase) and its one log line.
 */
async function requestMetrics(app: FastifyInstance): Promise<void> {
  const { metrics } = app.sealbox
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.request(route, request.method, reply.statusCode, request.timing.phases, request.timing.elapsed())
    logRequestLine(request, reply)
  })
}

export const metricsPlugin = fp(requestMetrics, {
  name: 'sealbox-metrics',
  fastify: '5.x',
  dependencies: ['sealbox-services', 'sealbox-timing'],
})
