import { randomUUID } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import underPressure from '@fastify/under-pressure'
import { HeError } from '@sealbox/he-core'
import Fastify, { type FastifyInstance } from 'fastify'
import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { ExecutorHub } from '../executor/ExecutorHub.ts'
import { workerSetupFrom } from '../executor/WorkerSetup.ts'
import { clientErrorResponder } from '../http/clientErrorResponder.ts'
import { edgeHooks } from '../http/edgeHooks.ts'
import { forwardedRequestId } from '../http/forwardedRequestId.ts'
import { frameworkError, MAX_PARAM_CHARS } from '../http/frameworkError.ts'
import { logRequestLine } from '../http/logRequestLine.ts'
import { useContractSchemas } from '../http/routeFromContract.ts'
import { ServerTiming } from '../http/ServerTiming.ts'
import { sendError } from '../http/sendError.ts'
import { KeyStoreMetrics } from '../metrics/KeyStoreMetrics.ts'
import { ServerMetrics } from '../metrics/ServerMetrics.ts'
import { healthRoutes } from '../routes/healthRoutes.ts'
import { OutageTolerantKeyStore } from '../store/OutageTolerantKeyStore.ts'
import { openKeyStoreAtStart } from '../store/openKeyStore.ts'
import { RateLimitedStoreLog } from '../store/RateLimitedStoreLog.ts'
import { anonymousTenantLimits } from '../tenancy/anonymousTenantLimits.ts'
import { TokenAuthority } from '../tenancy/TokenAuthority.ts'
import { TokensFile } from '../tenancy/TokensFile.ts'
import { apiPlugin } from './apiPlugin.ts'
import type { SealboxServices } from './SealboxServices.ts'
import { SearchCatalogPages } from './SearchCatalogPages.ts'
import type { SearchSummary } from './SearchSummary.ts'
import { DOCS_CSP_DIRECTIVES, securityHeaders } from './securityHeaders.ts'
import { serveSandbox } from './serveSandbox.ts'

/** Body limit of every route that does not set its own (key uploads, search and evaluate do). */
export const SMALL_BODY_BYTES = 64 * 1024

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
    bodyLimit: SMALL_BODY_BYTES,
    // The proxy's X-Request-Id (nginx sets $request_id, replacing any a client sent) when it
    // is a plain token, so one id follows a request from the proxy's log to ours; else ours.
    genReqId: (request) => forwardedRequestId(request.headers['x-request-id']) ?? randomUUID(),
    requestIdHeader: false,
    // One line per request, written when it is answered (requestLine below), not two.
    disableRequestLogging: true,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // The whole request, body included, must arrive within REQUEST_TIMEOUT_MS (a body dripped
    // a few bytes a second is cut at the deadline). Node checks its connections every
    // connectionsCheckingInterval (30 s by default, which let a drip run to 80–90 s).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: Math.min(config.REQUEST_TIMEOUT_MS, 60_000),
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(config.REQUEST_TIMEOUT_MS / 20))),
    },
    clientErrorHandler: clientErrorResponder({ requestTimeoutMs: config.REQUEST_TIMEOUT_MS }),
    // Long path segments reach the routes (whose ids are validated) and the URL limit in
    // edgeHooks, rather than the router's own 414 that echoes the path.
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    frameworkErrors: (error, request, reply) => {
      // The router refused before any hook ran: no timing, no x-request-id yet.
      request.timing ??= new ServerTiming()
      reply.header('x-request-id', request.id)
      sendError(request, reply, frameworkError(error))
    },
  })
  const metrics = new ServerMetrics()
  const auth = await TokenAuthority.create({ mode: config.MODE, tokens: config.TOKENS, dataDir })
  const tokensFile =
    config.TOKENS_FILE === undefined
      ? undefined
      : new TokensFile({
          path: config.TOKENS_FILE,
          fixed: config.TOKENS,
          auth,
          log: app.log,
          onReload: (result) => metrics.tokensReloaded(result),
        })
  await tokensFile?.load()
  tokensFile?.watch()
  const store = new OutageTolerantKeyStore(
    await openKeyStoreAtStart(config, dataDir, app.log, new RateLimitedStoreLog(app.log)),
    { staleMs: config.KEY_STORE_STALE_MS, observer: new KeyStoreMetrics(metrics.registry), log: app.log },
  )
  metrics.configInfo({ store: store.location.type, scheduler: config.SCHEDULING })
  const hub = new ExecutorHub({ config, setup: workerSetupFrom(config, store.location), metrics, log: app.log })
  let search: SearchSummary | undefined
  let catalog: SearchCatalogPages | undefined
  const warmup = hub.start().then((warm) => {
    search = warm.search
    catalog = new SearchCatalogPages(warm.search.configId, warm.catalog)
  })
  // Start-up failures are reported by whoever awaits `warmup` (main.ts exits with the message).
  warmup.catch(() => undefined)
  const services: SealboxServices = {
    config,
    auth,
    tokensFile,
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
    catalog() {
      if (!catalog) this.search()
      return catalog as SearchCatalogPages
    },
  }
  app.decorate('sealbox', services)

  // Route schemas are he-core's HTTP contract: requests, replies and the OpenAPI docs (`transform` below).
  useContractSchemas(app)
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body)
  })
  app.decorateRequest('timing', null as unknown as ServerTiming)
  app.addHook('onRequest', async (request) => {
    request.timing = new ServerTiming()
  })
  edgeHooks(app)
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
    logRequestLine(request, reply)
  })
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))

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
    transform: jsonSchemaTransform,
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP_DIRECTIVES })

  await app.register(healthRoutes)
  await app.register(apiPlugin, { prefix: '/api/v1' })

  await serveSandbox(app, config)

  app.addHook('onClose', async () => {
    tokensFile?.close()
    // Fastify has stopped accepting and answered in-flight requests by now.
    await hub.close()
    await store.flush()
    await store.close?.()
  })
  return app
}
