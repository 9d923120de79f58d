import { randomUUID } from 'node:crypto'
import { API_PREFIX } from '@sealbox/he-core/client'
import Fastify, { type FastifyInstance, LogController } from 'fastify'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { clientErrorResponder } from '../http/clientErrorResponder.ts'
import { forwardedRequestId } from '../http/forwardedRequestId.ts'
import { frameworkError, MAX_PARAM_CHARS } from '../http/frameworkError.ts'
import { ServerTiming } from '../http/ServerTiming.ts'
import { sendError } from '../http/sendError.ts'
import { apiPlugin } from '../plugins/apiPlugin.ts'
import { contractPlugin } from '../plugins/contractPlugin.ts'
import { docsPlugin } from '../plugins/docsPlugin.ts'
import { edgePlugin } from '../plugins/edgePlugin.ts'
import { loadSheddingPlugin } from '../plugins/loadSheddingPlugin.ts'
import { metricsPlugin } from '../plugins/metricsPlugin.ts'
import { quotasPlugin } from '../plugins/quotasPlugin.ts'
import { receivingPlugin } from '../plugins/receivingPlugin.ts'
import { sandboxPlugin } from '../plugins/sandboxPlugin.ts'
import { securityHeadersPlugin } from '../plugins/securityHeadersPlugin.ts'
import { servicesPlugin } from '../plugins/servicesPlugin.ts'
import { timingPlugin } from '../plugins/timingPlugin.ts'
import { healthRoutes } from '../routes/healthRoutes.ts'

/** Body limit of every route that does not set its own (key uploads, search and evaluate do). */
export const SMALL_BODY_BYTES = 64 * 1024

/** Options beyond the configuration (tests, embedding). */
export interface BuildServerOptions {
  /** Fastify logger options; defaults to pino at `LOG_LEVEL`. */
  logger?: boolean | { level: string }
}

/**
 * Builds the sealbox HTTP server from its plugins, in the order their hooks must run:
 * the services (key store, executors warming in the background — `app.sealbox.warmup`
 * settles when they are warm), Server-Timing, the HTTP edge, the contract's schemas and
 * error handler, metrics, load shedding, security headers, quotas, the bound on bodies
 * being received, the OpenAPI docs,
 * then the routes and the sandbox's files. Each plugin names those it needs
 * (`fastify-plugin` dependencies). `app.close()` stops accepting, lets in-flight work
 * finish, stops the workers and flushes the store.
 */
export async function buildServer(config: ServerConfig, options: BuildServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: config.LOG_LEVEL },
    bodyLimit: SMALL_BODY_BYTES,
    // The proxy's X-Request-Id (nginx sets $request_id, replacing any a client sent) when it
    // is a plain token, so one id follows a request from the proxy's log to ours; else ours.
    genReqId: (request) => forwardedRequestId(request.headers['x-request-id']) ?? randomUUID(),
    requestIdHeader: false,
    // One line per request, written when it is answered (metricsPlugin), not two.
    logController: new LogController({ disableRequestLogging: true }),
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
    // edgePlugin, rather than the router's own 414 that echoes the path.
    routerOptions: { maxParamLength: MAX_PARAM_CHARS },
    frameworkErrors: (error, request, reply) => {
      // The router refused before any hook ran: no timing, no x-request-id yet.
      request.timing ??= new ServerTiming()
      reply.header('x-request-id', request.id)
      sendError(request, reply, frameworkError(error))
    },
  })
  await app.register(servicesPlugin, { config })
  await app.register(timingPlugin)
  await app.register(edgePlugin)
  await app.register(contractPlugin)
  await app.register(metricsPlugin)
  await app.register(loadSheddingPlugin)
  await app.register(securityHeadersPlugin)
  await app.register(quotasPlugin)
  await app.register(receivingPlugin)
  await app.register(docsPlugin)
  await app.register(healthRoutes)
  await app.register(apiPlugin, { prefix: API_PREFIX })
  await app.register(sandboxPlugin)
  return app
}
