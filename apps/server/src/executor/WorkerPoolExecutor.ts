import { DiagonalMemory } from '@sealbox/he-ring'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'
import { ThreadWorkerHandle } from './ThreadWorkerHandle.ts'
import { WorkerSet } from './WorkerSet.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** SEAL's own share of a fresh worker's heap (measured 60 MiB: SEAL, the context, a query). */
const FRESH_HEAP_BYTES = 64 * 2 ** 20

/**
 * True for the worker that processed the node's shared diagonals when its SEAL heap — which
 * never shrinks — still spans more than a fresh worker's plus the whole shared copy: the
 * plaintexts it encoded, deleted but resident. It is replaced at once; its replacement
 * attaches with a fresh heap, so the node keeps the diagonals once and no encoding's
 * high-water mark.
 */
function builtLargeHeap(info: WarmInfo): boolean {
  const { diagonals, worker } = info
  if (!diagonals?.shared || diagonals.attached || worker.heapBytes === undefined) return false
  return worker.heapBytes - FRESH_HEAP_BYTES > diagonals.bytes
}

/** Options of the worker-thread executor. */
export interface WorkerPoolOptions {
  setup: WorkerSetup
  threads: number
  /** node-seal compiled once on the main thread and posted to every worker. */
  wasmModule?: WebAssembly.Module
  events?: ExecutorEvents
}

/**
 * Runs HE work in worker threads (`ThreadWorkerHandle`, each a single-thread Piscina), each
 * with its own warm node-seal instance, processed database and key cache, so the main event
 * loop only parses requests and moves bytes. Workers that hit the SEAL-exception budget, run
 * out of WASM memory, overstay a deadline or die are replaced (`WorkerSet`); only the job that
 * was on them fails.
 *
 * Each thread is its own single-thread Piscina, and choosing a worker is choosing its
 * pool. Piscina's public API splits scheduling in two: a `taskQueue` orders tasks (its
 * `shift()` is not told which worker is free, and a task submitted while the queue is
 * empty never reaches it), and a `loadBalancer` places them (it is given the task's id,
 * name and file, not its payload or queue options). The order is the FairScheduler's,
 * the same for every executor; the placement is by key affinity (the thread that holds
 * a job's keys deserialized), which neither hook can be told through its documented
 * arguments, while a pool per thread needs no hook at all.
 */
export class WorkerPoolExecutor implements Executor {
  readonly mode = 'pool' as const
  readonly #threads: number
  readonly #workers: WorkerSet
  /**
   * The node's one copy of the search kernel's diagonals, posted to every thread: the
   * first to claim it processes the database into it, the rest and every replacement
   * attach. Held here, so it outlives any thread.
   */
  readonly diagonals = DiagonalMemory.create({ shared: true })

  constructor(options: WorkerPoolOptions) {
    const { threads, setup, wasmModule } = options
    this.#threads = threads
    this.#workers = new WorkerSet({
      size: threads,
      spawn: () =>
        ThreadWorkerHandle.start({ setup, diagonals: this.diagonals.memory, ...(wasmModule ? { wasmModule } : {}) }),
      events: options.events ?? {},
      noun: 'worker',
      retireWhenWarm: (info) => (builtLargeHeap(info) ? 'sharedBuild' : undefined),
      onWorkerExit: (workerId) => this.#releaseDeadBuilder(workerId),
    })
  }

  /** A thread that died while it built the shared diagonals gives the build up: another thread claims it. */
  #releaseDeadBuilder(workerId: string): void {
    const builder = this.diagonals.builder
    if (builder !== 0 && this.diagonals.state === 'building' && workerId === `thread-${builder - 1}`) {
      this.diagonals.release(builder)
    }
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
      mode: 'pool',
      size: this.#threads,
      warm: this.#workers.inService(),
      running: this.#workers.running,
      replacements: this.#workers.replacements,
    }
  }

  close(): Promise<void> {
    return this.#workers.close()
  }
}
