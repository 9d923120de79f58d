import type { FastifyRequest } from 'fastify'

/**
 * What is left of the request's deadline (REQUEST_TIMEOUT_MS, counted from its arrival)
 * for its job: the deadline covers the whole request — receiving the body (Node's
 * `requestTimeout`), waiting in the queue and the work — not each part afresh. At least
 * 1 ms, so a request whose body took it all still gets its TIMEOUT answer from the scheduler.
 */
export function requestTimeLeft(request: FastifyRequest): number {
  return Math.max(1, Math.floor(request.server.sealbox.config.REQUEST_TIMEOUT_MS - request.timing.elapsed()))
}
