import { ChildTask } from '../core/ChildTask.ts'
import type { PreparedWorkload } from './PreparedWorkload.ts'
import type { LoadJob, LoadResult } from './serverBenchProtocol.ts'

const LOAD_GENERATOR = new URL('./loadGenerator.ts', import.meta.url)

/** A request that takes longer than this is counted as an error (CLIENT_TIMEOUT). */
export const REQUEST_TIMEOUT_MS = 60_000

/** One load cell against a running server: how much load, for how long. */
export interface LoadCell {
  baseUrl: string
  token: string
  workload: PreparedWorkload
  concurrency: number
  /** Unrecorded requests first, at the same concurrency. */
  warmupRequests: number
  /** The measured part stops after this many requests or `maxSeconds`, whichever comes first. */
  requests: number
  maxSeconds: number
}

/**
 * Runs one load job in a fresh load-generator process (`loadGenerator.ts`) and returns what
 * it measured. The process is killed if it overstays the job's own time bounds by a minute.
 */
export async function runLoad(job: LoadJob): Promise<LoadResult> {
  // Warm-up and measured part are each bounded by maxSeconds; the last request by its timeout.
  const limitMs = (2 * job.maxSeconds + 60) * 1000 + (job.requestTimeoutMs ?? 0)
  return ChildTask.start<LoadResult>('load generator', LOAD_GENERATOR, job, limitMs).result
}

/**
 * Runs one cell as one user, reading the server's `/metrics` (event-loop delay, process CPU)
 * right before and after the measured part.
 */
export async function runLoadCell(cell: LoadCell): Promise<LoadResult> {
  return runLoad({
    baseUrl: cell.baseUrl,
    tokens: [cell.token],
    calls: cell.workload.calls,
    concurrency: cell.concurrency,
    warmupRequests: cell.warmupRequests,
    requests: cell.requests,
    maxSeconds: cell.maxSeconds,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    scrapeMetrics: true,
  })
}
