import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { FAULTS } from '../executor/jobMessages.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobResult } from '../http/jobReply.ts'
import { parseInput } from '../http/parseInput.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'

const FaultParams = z.object({ fault: z.enum(FAULTS) })
const FaultQuery = z.object({ ms: z.coerce.number().int().min(1).max(120_000).optional() })

/** Test-only (FAULT_INJECTION, refused in production): make a worker crash, hang, run out of memory or throw. */
export async function faultRoutes(app: FastifyInstance): Promise<void> {
  const { hub } = app.sealbox
  app.post('/_faults/:fault', { schema: { hide: true } }, async (request, reply) => {
    const { tenant } = request
    const { fault } = parseInput(FaultParams, request.params, 'params')
    const { ms } = parseInput(FaultQuery, request.query, 'query')
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
