import { healthRoute, metricsRoute, readinessRoute } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { routeFromContract } from '../http/routeFromContract.ts'

const noPressure = { pressureHandler: () => undefined }

/**
 * Liveness, readiness and metrics. `/healthz` is answered by the main event loop
 * and nothing else: its latency is the loop's latency, which is the point of the
 * isolation benchmark. It is exempt from the under-pressure guard.
 */
export async function healthRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { hub, metrics, store } = app.sealbox
  app.route({
    ...routeFromContract(healthRoute),
    config: noPressure,
    handler: async () => ({ status: 'ok' as const }),
  })

  app.route({
    ...routeFromContract(readinessRoute),
    config: noPressure,
    handler: async (_request, reply) => {
      const executors = [...hub.schedulers()].map(([mode, scheduler]) => ({
        ...scheduler.executor.status(),
        queued: scheduler.queued,
        default: mode === hub.defaultMode,
      }))
      // Not ready while the loop is under pressure either: every other route would answer
      // 503 OVERLOADED (e.g. right after the inline executor warmed up on the loop).
      const overloaded = app.isUnderPressure()
      const ready = hub.ready() && !overloaded
      if (!ready) reply.status(503).header('retry-after', '1')
      // A degraded store leaves the node ready: it still serves what it holds (see OutageTolerantKeyStore).
      return {
        ready,
        executors,
        ...(overloaded ? { overloaded } : {}),
        store: { type: store.location.type, ...store.health() },
      }
    },
  })

  app.route({
    ...routeFromContract(metricsRoute),
    config: noPressure,
    handler: async (_request, reply) => {
      reply.type(metrics.registry.contentType)
      return metrics.registry.metrics()
    },
  })
}
