import { HeError } from '@sealbox/he-core'
import type { FastifyRequest } from 'fastify'
import type { HubResult } from '../executor/ExecutorHub.ts'
import type { JobResult } from '../executor/jobMessages.ts'

/**
 * Books a finished job's phases on the request (queue wait, and what the worker
 * measured) and returns its result, or throws the worker's error as an HeError.
 */
export function jobResult<T extends JobResult['type']>(
  request: FastifyRequest,
  done: HubResult,
  expected: T,
): Extract<JobResult, { type: T }> {
  request.timing.add('queue', done.queueMs)
  request.timing.addAll(done.reply.timings)
  const result = done.reply.result
  if (result.type === 'failed') throw HeError.fromJSON(result.error)
  if (result.type !== expected) throw new HeError('INTERNAL', `worker answered ${result.type} to a ${expected} job`)
  return result as Extract<JobResult, { type: T }>
}
