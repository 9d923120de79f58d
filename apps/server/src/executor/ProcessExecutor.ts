import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'
import { ProcessWorkerHandle } from './ProcessWorkerHandle.ts'
import { WorkerSet } from './WorkerSet.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** Options of the child-process executor. */
export interface ProcessExecutorOptions {
  setup: WorkerSetup
  processes: number
  events?: ExecutorEvents
}

/**
 * Runs HE work in child processes (`ProcessWorkerHandle`): the isolation the Swift study used
 * (a separate process per HE worker; the server README's "Why isolation matters" says which
 * study). Each child holds a warm node-seal instance and its own key cache; a crashed,
 * worn-out or overdue child is killed and respawned (`WorkerSet`).
 */
export class ProcessExecutor implements Executor {
  readonly mode = 'process' as const
  readonly #size: number
  readonly #workers: WorkerSet

  constructor(options: ProcessExecutorOptions) {
    this.#size = options.processes
    this.#workers = new WorkerSet({
      size: options.processes,
      spawn: () => ProcessWorkerHandle.fork(options.setup),
      events: options.events ?? {},
      noun: 'worker process',
    })
  }

  start(): Promise<WarmInfo> {
    return this.#workers.start()
  }

  ready(): boolean {
    return this.#workers.ready()
  }

  freeSlots(): number {
    return this.#workers.freeSlots()
  }

  idleWorkers(): string[] {
    return this.#workers.idleWorkers()
  }

  run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply> {
    return this.#workers.run(job, deadline, workerId)
  }

  recycle(workerId: string, reason: ReplacementReason): boolean {
    return this.#workers.recycle(workerId, reason)
  }

  status(): ExecutorStatus {
    return {
      mode: 'process',
      size: this.#size,
      warm: this.#workers.inService(),
      running: this.#workers.running,
      replacements: this.#workers.replacements,
    }
  }

  close(): Promise<void> {
    return this.#workers.close()
  }
}
