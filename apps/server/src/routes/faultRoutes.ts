import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { SEALBOX_HEADERS } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { FAULTS } from '../executor/jobMessages.ts'
import { executorOverride } from '../http/executorOverride.ts'
import { jobClient } from '../http/jobClient.ts'
import { jobResult } from '../http/jobReply.ts'
import { requestTimeLeft } from '../http/requestTimeLeft.ts'

// Not part of the HTTP contract (test-only, hidden from /docs), but validated the same way.
const GateName = z.string().regex(/^[a-z0-9-]{1,64}$/, 'a gate is 1–64 of a–z, 0–9 and -')
const FaultParams = z.object({ fault: z.enum(FAULTS) })
const FaultQuery = z.object({
  /** `slow` and `hold`: how long the job keeps its worker; `hang`: the job's deadline, when shorter than the request's. */
  ms: z.coerce.number().int().min(1).max(120_000).optional(),
  /** `hold`: the gate that releases the job (`POST /_faults/gates/<gate>` opens it). */
  gate: GateName.optional(),
})
const GateParams = z.object({ gate: GateName })

/**
 * Test-only (FAULT_INJECTION, refused in production): make a worker crash, hang (until
 * the request's deadline, or `?ms=` when that is sooner), run out of memory, throw, stay
 * busy, or hold until a test opens a gate. Gates are files
 * under DATA_DIR/fault-gates, so a job in a worker thread, a child process or inline
 * sees its gate open the same way.
 */
export async function faultRoutes(app: FastifyInstance): Promise<void> {
  const { hub, config } = app.sealbox
  const gates = join(resolve(config.DATA_DIR), 'fault-gates')
  await mkdir(gates, { recursive: true })
  const schema = { hide: true, params: FaultParams, querystring: FaultQuery }
  app.withTypeProvider<ZodTypeProvider>().post('/_faults/:fault', { schema }, async (request, reply) => {
    const { tenant } = request
    const { fault } = request.params
    const { ms, gate } = request.query
    // A hang spins until its deadline kills it: `ms` makes that deadline (the answer's and
    // the work's) sooner, so a test proves the kill without spinning a core for the whole
    // REQUEST_TIMEOUT_MS.
    const hangMs = fault === 'hang' && ms !== undefined ? Math.min(ms, requestTimeLeft(request)) : undefined
    const done = await hub.submit(
      tenant.id,
      {
        type: 'fault',
        fault,
        ...(ms === undefined ? {} : { ms }),
        ...(gate === undefined ? {} : { gatePath: join(gates, gate) }),
      },
      {
        timeoutMs: hangMs ?? requestTimeLeft(request),
        ...(hangMs === undefined ? {} : { workTimeoutMs: hangMs }),
        client: jobClient(request),
        ...executorOverride(request),
      },
    )
    reply.header(SEALBOX_HEADERS.executor, done.mode)
    jobResult(request, done)
    return { survived: true }
  })
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/_faults/gates/:gate', { schema: { hide: true, params: GateParams } }, async (request) => {
      await writeFile(join(gates, request.params.gate), '')
      return { opened: request.params.gate }
    })
}
