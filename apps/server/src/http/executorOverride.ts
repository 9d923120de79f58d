import { HeError } from '@sealbox/he-core'
import { SEALBOX_HEADERS, ServerExecutorModeSchema } from '@sealbox/he-core/client'
import type { FastifyRequest } from 'fastify'
import type { SealboxServices } from '../app/SealboxServices.ts'
import { EXECUTOR_MODES, type ExecutorMode } from '../config/ServerConfig.ts'
import { TokenBucketLimiter } from './TokenBucketLimiter.ts'

/** One limiter per server (tests run several in a process), keyed by its services. */
const limiters = new WeakMap<SealboxServices, TokenBucketLimiter>()

function limiterOf(services: SealboxServices): TokenBucketLimiter {
  let limiter = limiters.get(services)
  if (!limiter) {
    limiter = new TokenBucketLimiter({
      ratePerSecond: services.config.EXECUTOR_OVERRIDE_RATE,
      burst: services.config.EXECUTOR_OVERRIDE_BURST,
      what: 'requests choosing an executor (x-sealbox-executor; EXECUTOR_OVERRIDE_RATE / EXECUTOR_OVERRIDE_BURST)',
    })
    limiters.set(services, limiter)
  }
  return limiter
}

/**
 * The executor a request asks for in `x-sealbox-executor` (benchmarks), if any. A
 * request that picks another executor than the configured one spends a token of its
 * client address's bucket (EXECUTOR_OVERRIDE_RATE per second, EXECUTOR_OVERRIDE_BURST
 * at once): past it, 429 RATE_LIMITED with Retry-After. The comparison executors are
 * for measuring, not a second way in for one client's flood.
 */
export function executorOverride(request: FastifyRequest): { mode?: ExecutorMode } {
  const value = request.headers[SEALBOX_HEADERS.executor]
  if (value === undefined) return {}
  const parsed = ServerExecutorModeSchema.safeParse(value)
  if (!parsed.success) {
    throw new HeError('INVALID_INPUT', `${SEALBOX_HEADERS.executor} must be one of ${EXECUTOR_MODES.join(', ')}`)
  }
  const mode = parsed.data
  const services = request.server.sealbox
  if (mode !== services.config.EXECUTOR && services.config.ALLOW_EXECUTOR_OVERRIDE) {
    limiterOf(services).take(request.ip)
  }
  return { mode }
}
