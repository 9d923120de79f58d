import { HeError } from '@sealbox/he-core'
import type { FastifyRequest } from 'fastify'
import { EXECUTOR_MODES, type ExecutorMode } from '../config/ServerConfig.ts'

/** The executor a request asks for in `x-sealbox-executor` (benchmarks), if any. */
export function executorOverride(request: FastifyRequest): { mode?: ExecutorMode } {
  const value = request.headers['x-sealbox-executor']
  if (value === undefined) return {}
  if (typeof value !== 'string' || !(EXECUTOR_MODES as readonly string[]).includes(value)) {
    throw new HeError('INVALID_INPUT', `x-sealbox-executor must be one of ${EXECUTOR_MODES.join(', ')}`)
  }
  return { mode: value as ExecutorMode }
}
