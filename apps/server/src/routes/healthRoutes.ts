import type { FastifyInstance } from 'fastify'

const noPressure = { pressureHandler: () => undefined }

/**
 * Liveness, readiness and metrics. `/healthz` is answered by the main event loop
 * and nothing else: its latency is the loop's latency, which is the point of the
 * isolation benchmark. It is exempt from the under-pressure guard.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { hub, metrics } = app.sealbox
  app.get(
    '/healthz',
    {
      config: noPressure,
      schema: { tags: ['health'], summary: 'Liveness: the event loop answers' },
    },
    async () => ({ status: 'ok' }),
  )

  app.get(
    '/readyz',
    {
      config: noPressure,
      schema: {
        tags: ['health'],
        summary: 'Readiness: every worker warm (SEAL loaded, database processed) and the event loop not overloaded',
      },
    },
    async (_request, reply) => {
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
      return { ready, executors, ...(overloaded ? { overloaded } : {}) }
    },
  )

  app.get(
    '/metrics',
    { config: noPressure, schema: { tags: ['health'], summary: 'Prometheus metrics' } },
    async (_request, reply) => {
      reply.type(metrics.registry.contentType)
      return metrics.registry.metrics()
    },
  )
}
