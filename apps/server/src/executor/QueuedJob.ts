import type { WorkerJob } from './jobMessages.ts'
import type { JobKeys } from './KeyPlacement.ts'
import type { Scheduled, SubmitOptions } from './SubmitOptions.ts'

/** A job waiting in the fair scheduler's queue, with what it needs to start and to answer. */
export interface QueuedJob {
  tenant: string
  /** Its deficit round-robin lane: the tenant's FIFO. */
  lane: string
  /** Whose share of the queue it counts in: its tenant, or its anonymous client address. */
  party: string
  job: WorkerJob
  /** The job's stored evaluation keys (what a worker may already hold). */
  jobKeys: JobKeys | undefined
  /** Their cache key, the identity the worker choice compares. */
  keys: string | undefined
  /** Times a later job went first (affinity); bounded so no job waits for long. */
  bypassed: number
  /** Estimated work in cost units. */
  cost: number
  /** Estimated peak heap, bytes (0: not estimated). */
  peakHeapBytes: number
  hooks: Pick<SubmitOptions, 'beforeRun' | 'afterRun'>
  enqueuedAt: number
  deadlineAt: number
  /** When a started job's worker is stopped (`workTimeoutMs`). */
  workDeadlineAt: number
  resolve(value: Scheduled): void
  reject(error: unknown): void
  cleanup(): void
}
