import { HeError } from '@sealbox/he-core'
import type { FastifyRequest } from 'fastify'
import type { HubResult } from '../executor/HubResult.ts'
import type { JobResultOf, WorkerJob } from '../executor/jobMessages.ts'

/**
 * Books a finished job's phases on the request (queue wait, and what the worker
 * measured) and returns its result, typed by the job the route sent, or throws the
 * worker's error as an HeError.
 */
export function jobResult<J extends WorkerJob>(request: FastifyRequest, done: HubResult<J>): JobResultOf<J> {
  request.timing.add('queue', done.queueMs)
  request.timing.addAll(done.reply.timings)
  if (!done.outcome.ok) throw HeError.fromJSON(done.outcome.error)
  return done.outcome.result
}
