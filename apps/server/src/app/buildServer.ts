import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import underPressure from '@fastify/under-pressure'
import { HeError } from '@sealbox/he-core'
import Fastify, { type FastifyInstance } from 'fastify'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { ExecutorHub } from '../executor/ExecutorHub.ts'
import { workerSetupFrom } from '../executor/WorkerSetup.ts'
import { ServerTiming } from '../http/ServerTiming.ts'
import { sendError } from '../http/sendError.ts'
import { ServerMetrics } from '../metrics/ServerMetrics.ts'
import { evaluateRoutes } from '../routes/evaluateRoutes.ts'
import { faultRoutes } from '../routes/faultRoutes.ts'
import { healthRoutes } from '../routes/healthRoutes.ts'
import { keySetRoutes } from '../routes/keySetRoutes.ts'
import { searchRoutes } from '../routes/searchRoutes.ts'
import { sessionRoutes } from '../routes/sessionRoutes.ts'
import { openKeyStore } from '../store/openKeyStore.ts'
import { anonymousTenantLimits } from '../tenancy/anonymousTenantLimits.ts'
import { TokenAuthority } from '../tenancy/TokenAuthority.ts'
import type { SealboxServices } from './SealboxServices.ts'
import type { SearchSummary } from './SearchSummary.ts'
import { DOCS_CSP_DIRECTIVES, securityHeaders } from './securityHeaders.ts'
import { serveSandbox } from './serveSandbox.ts'

/** Options beyond the configuration (tests, embedding). */
export interface BuildServerOptions {
  /** Fastify logger options; defaults to pino at `LOG_LEVEL`. */
  logger?: boolean | { level: string }
}

/**
 * Builds the sealbox HTTP server: opens the key store, starts the executors (warming
 * in the background; `app.sealbox.warmup` settles when they are warm), and registers
 * every route, the error handler, Server-Timing, metrics, OpenAPI docs and the
 * sandbox's files. `app.close()` stops accepting, lets in-flight work finish,
 * stops the workers and flushes the store.
 */
export async function buildServer(config: ServerConfig, options: BuildServerOptions = {}): Promise<FastifyInstance> {
  const dataDir = resolve(config.DATA_DIR)
  await mkdir(dataDir, { recursive: true })
  const app = Fastify({
    logger: options.logger ?? { level: config.LOG_LEVEL },
    // JSON bodies (evaluate) may carry base64 ciphertexts; binary routes set their own limits.
    bodyLimit: config.MAX_REQUEST_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Node's own timeout is a backstop; the scheduler enforces REQUEST_TIMEOUT_MS per job.
    requestTimeout: config.REQUEST_TIMEOUT_MS + 10_000,
  })
  const metrics = new ServerMetrics()
  const auth = await TokenAuthority.create({ mode: config.MODE, tokens: config.TOKENS, dataDir })
  const store = await openKeyStore(config, dataDir, app.log)
  metrics.configInfo({ store: store.location.type, scheduler: config.SCHEDULING })
  const hub = new ExecutorHub({ config, setup: workerSetupFrom(config, store.location), metrics, log: app.log })
  let search: SearchSummary | undefined
  const warmup = hub.start().then((warm) => {
    search = warm.search
  })
  // Start-up failures are reported by whoever awaits `warmup` (main.ts exits with the message).
  warmup.catch(() => undefined)
  const services: SealboxServices = {
    config,
    auth,
    store,
    metrics,
    hub,
    warmup,
    search() {
      if (!search) {
        throw new HeError('OVERLOADED', 'the server is still warming up its workers', {
          details: { retryAfterSeconds: 2 },
        })
      }
      return search
    },
  }
  app.decorate('sealbox', services)

  // zod validates every input in the handlers; route schemas exist for the OpenAPI docs.
  app.setValidatorCompiler(() => (data) => ({ value: data }))
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body)
  })
  app.decorateRequest('timing', null as unknown as ServerTiming)
  app.addHook('onRequest', async (request) => {
    request.timing = new ServerTiming()
  })
  let closing = false
  // Node's server.close() closes idle keep-alive connections once, not those that go
  // idle later: answers finished during shutdown close their connection themselves.
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('server-timing', request.timing.header())
    if (closing) reply.header('connection', 'close')
    return payload
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.request(route, request.method, reply.statusCode, request.timing.phases, request.timing.elapsed())
  })
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new HeError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  )

  await app.register(underPressure, {
    maxEventLoopDelay: config.MAX_EVENT_LOOP_DELAY_MS,
    retryAfter: 1,
    pressureHandler: (_request, reply) => {
      reply.header('retry-after', '1')
      throw new HeError('OVERLOADED', 'the event loop is overloaded; retry shortly', {
        details: { retryAfterSeconds: 1 },
      })
    },
  })
  await securityHeaders(app, config)
  await anonymousTenantLimits(app)
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
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP_DIRECTIVES })

  await app.register(healthRoutes)
  await app.register(sessionRoutes)
  await app.register(keySetRoutes)
  await app.register(searchRoutes)
  await app.register(evaluateRoutes)
  if (config.FAULT_INJECTION) await app.register(faultRoutes)

  await serveSandbox(app, config)

  app.addHook('onClose', async () => {
    // Fastify has stopped accepting and answered in-flight requests by now.
    await hub.close()
    await store.flush()
    await store.close?.()
  })
  return app
}
