import type { WorkerReply } from './jobMessages.ts'

/** How to run one submission. */
export interface SubmitOptions {
  /** The client went away: cancels the job while it waits (a running job finishes). */
  signal?: AbortSignal
  /** Milliseconds from now until the whole request times out, queue wait included. */
  timeoutMs: number
  /**
   * Milliseconds from now that the job's own work may take before its worker is stopped
   * (default `timeoutMs`): a request whose body took most of its deadline still gets its
   * job's full time, so a worker is never killed for time spent receiving the body.
   */
  workTimeoutMs?: number
  /**
   * Whose share of the queue the job counts in (default its tenant): the anonymous sessions
   * of one client address share one, so opening sessions never buys more of the queue.
   * The round-robin still serves each tenant's FIFO.
   */
  lane?: string
  /** The job's estimated work in cost units (he-core's cost model); 1 when unknown. */
  cost?: number
  /** The most heap the job adds to its worker's (a program's peak, a key upload's keys); 0 when not estimated. */
  peakHeapBytes?: number
  /** Called just before the job goes to the executor; what it throws refuses the job instead. */
  beforeRun?: () => void
  /** Called with the worker's reply before the submission resolves. */
  afterRun?: (reply: WorkerReply) => void
}

/** A finished job and how long it waited for a worker. */
export interface Scheduled {
  reply: WorkerReply
  queueMs: number
}
