import type { ExecutorMode } from '../config/ServerConfig.ts'
import type { ProcessingProgress, WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'

/** Why a worker was replaced (a metrics label). */
export type ReplacementReason =
  | 'sealExceptions'
  | 'outOfMemory'
  | 'heapGrown'
  | 'heapBudget'
  /** The thread that processed the node's shared diagonals: its SEAL heap still spans the plaintexts it encoded. */
  | 'sharedBuild'
  | 'fault'
  | 'crashed'
  | 'timeout'

/** What an executor tells the server as it runs. */
export interface ExecutorEvents {
  /** A worker became warm (the first one also brings the search config). */
  onWarm?(info: WarmInfo): void
  /** A warming worker processed more of the database (throttled by the worker). */
  onProgress?(workerId: string, progress: ProcessingProgress): void
  /** A worker was taken out of service; a new one is on its way. */
  onReplaced?(workerId: string, reason: ReplacementReason): void
  /** Free slots may have appeared (a worker got warm, a job finished). */
  onCapacity?(): void
}

/** A snapshot for `/readyz` and `/metrics`. */
export interface ExecutorStatus {
  mode: ExecutorMode
  /** Workers wanted. */
  size: number
  /** Workers warm and in service. */
  warm: number
  /** Jobs running now. */
  running: number
  replacements: number
}

/**
 * Where HE jobs run. One class per strategy (worker threads, the main event loop,
 * child processes), chosen at start-up from configuration; each keeps its workers through
 * one `WorkerSet` over the runtime's `WorkerHandle`. Executors run at most
 * `freeSlots()` jobs at once; queueing and fairness live in front of them, in the
 * `FairScheduler`, so every strategy is scheduled the same way.
 */
export interface Executor {
  readonly mode: ExecutorMode
  /** Starts the workers and resolves once at least one is warm (`ready()` tracks all). */
  start(): Promise<WarmInfo>
  /** True when every worker is warm. */
  ready(): boolean
  /** Jobs that could start right now. */
  freeSlots(): number
  /**
   * Ids of the workers that could start a job right now (`thread-7`, `inline`, as in
   * replies): the scheduler pairs each with a job (affinity) and runs it there.
   */
  idleWorkers(): string[]
  /**
   * Runs one job. `deadline` aborts work that overstays: an isolated executor kills
   * the worker (the reply is a TIMEOUT error and the worker is replaced). Failures of
   * the job itself come back in the reply; a rejection means the worker failed.
   */
  run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply>
  /**
   * Replaces an idle worker with a fresh one (the scheduler makes room for a job whose
   * estimated heap the worker cannot take on top of its own); false when `workerId` is
   * not an idle worker in service. The fresh worker reports through `onWarm`.
   */
  recycle?(workerId: string, reason: ReplacementReason): boolean
  status(): ExecutorStatus
  /** Waits for running jobs, then stops every worker. */
  close(): Promise<void>
}
