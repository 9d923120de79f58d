import type { SealboxClient, ServerTimingPhases } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import type { WorkloadCalls } from './serverBenchProtocol.ts'

/** What one answered call gives a benchmark: the answer to check and the server's phases. */
export interface WorkloadAnswer {
  /** The search response bundle, or the program's first output envelope. */
  answer: Uint8Array
  /** `Server-Timing` phases (ms). */
  phases: ServerTimingPhases
}

/** How many distinct requests a workload cycles through. */
export function workloadCallCount(calls: WorkloadCalls): number {
  return calls.route === 'search' ? calls.queries.length : calls.calls.length
}

/**
 * Sends the workload's request `index` (mod the number of distinct requests) with
 * `client`; an error reply rejects with the client's HeError (see `clientFailure`).
 */
export async function sendWorkloadCall(
  client: SealboxClient,
  calls: WorkloadCalls,
  index: number,
  signal?: AbortSignal,
): Promise<WorkloadAnswer> {
  const options = signal ? { signal } : {}
  const at = index % workloadCallCount(calls)
  if (calls.route === 'search') {
    const result = await client.search(calls.queries[at] as Uint8Array, { ...options, keySet: calls.keySet })
    return { answer: result.responses[0] ?? new Uint8Array(), phases: result.timing }
  }
  const result = await client.evaluate(calls.calls[at] as (typeof calls.calls)[number], options)
  const answer = Object.values(result.outputs)[0]
  if (!answer) throw new BenchError('ENGINE_FAILED', 'the evaluate reply has no output')
  return { answer, phases: result.timing }
}
