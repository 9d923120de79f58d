import { SealboxClient } from '@sealbox/he-core/client'
import type { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import type { PreparedWorkload } from './PreparedWorkload.ts'
import { REQUEST_TIMEOUT_MS } from './runLoadCell.ts'
import { sendWorkloadCall } from './sendWorkloadCall.ts'

/** A few requests at a time until every worker has answered each workload (JIT, key caches). */
async function warmUp(client: SealboxClient, workload: PreparedWorkload, workers: number): Promise<void> {
  const lanes = workers + 1
  const perLane = 2
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = 0; i < perLane; i++) {
        try {
          await sendWorkloadCall(client, workload.calls, lane + i, AbortSignal.timeout(REQUEST_TIMEOUT_MS))
        } catch (error) {
          throw new BenchError('ENGINE_FAILED', `warm-up ${workload.workload}: ${String(error)}`, { cause: error })
        }
      }
    }),
  )
}

/**
 * Gets a freshly started bench server ready for load: a session (local mode), a check
 * that it serves the search config the queries were made for, each workload's key set
 * uploaded, and a warm-up until every worker has answered each workload.
 */
export async function openBenchSession(
  node: ServerNode,
  workloads: readonly PreparedWorkload[],
  workers: number,
): Promise<{ token: string; client: SealboxClient }> {
  const anonymous = new SealboxClient({ baseUrl: node.url })
  const { session, client } = await anonymous.createSession()
  for (const workload of workloads) {
    if (workload.configId !== undefined) {
      const served = await anonymous.searchConfig()
      if (served.configId !== workload.configId) {
        throw new BenchError(
          'ENGINE_FAILED',
          `the ${node.name} server serves search config ${served.configId}, the queries were made for ${workload.configId}: are SEARCH_* or SYNTHETIC_* set in the environment?`,
        )
      }
    }
    if (workload.keySet) await client.putKeySet(workload.keySet.id, workload.keySet.bytes)
    await warmUp(client, workload, workers)
  }
  return { token: session.token, client }
}
