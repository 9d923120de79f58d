import type { FastifyReply, FastifyRequest } from 'fastify'
import { answeredErrorCode } from './sendError.ts'

/**
 * The one log line of an answered request (pino, under the request's `reqId`): method,
 * path, status, the error code when there was one, the node's time and the bytes in (the
 * tenant comes with the request's logger once its token named one). Health probes and metrics scrapes are at debug level,
 * so a probe every second does not fill the log.
 */
export function logRequestLine(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? ''
  const quiet = path === '/healthz' || path === '/readyz' || path === '/metrics'
  const code = answeredErrorCode(request)
  const length = Number(request.headers['content-length'])
  request.log[quiet ? 'debug' : 'info'](
    {
      method: request.method,
      url: request.url.length > 200 ? `${request.url.slice(0, 200)}…` : request.url,
      status: reply.statusCode,
      ...(code === undefined ? {} : { code }),
      ms: Math.round(request.timing.elapsed() * 10) / 10,
      ...(Number.isFinite(length) ? { bytesIn: length } : {}),
    },
    'request',
  )
}
