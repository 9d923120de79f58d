import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { FAULTS } from '../executor/jobMessages.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'

// Not part of the HTTP contract (test-only, hidden from /docs), but validated the same way.
const FaultParams = z.object({ fault: z.enum(FAULTS) })
const FaultQuery = z.object({ ms: z.coerce.number().int().min(1).max(120_000).optional() })

/** Test-only (FAULT_INJECTION, refused in production): make a worker crash, hang, run out of memory or throw. */
export async function faultRoutes(app: FastifyInstance): Promise<void> {
  const { hub } = app.sealbox
  const schema = { hide: true, params: FaultParams, querystring: FaultQuery }
  app.withTypeProvider<ZodTypeProvider>().post('/_faults/:fault', { schema }, async (request, reply) => {
    const { tenant } = request
    const { fault } = request.params
    const { ms } = request.query
    const done = await hub.submit(
      tenant.id,
      { type: 'fault', fault, ...(ms === undefined ? {} : { ms }) },
      { timeoutMs: requestTimeLeft(request), ...executorOverride(request) },
    )
    reply.header('x-sealbox-executor', done.mode)
    jobResult(request, done, 'faultSurvived')
    return { survived: true }
  })
}
