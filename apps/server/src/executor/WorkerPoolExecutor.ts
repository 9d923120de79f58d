import { HeError } from '@sealbox/he-core'
import { DiagonalMemory } from '@sealbox/he-ring'
import { Piscina } from 'piscina'
import { CHILD_EXEC_ARGV, packageModuleFile } from '../app/packageModule.ts'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import { PoolEventSchema, type WarmInfo, type WorkerJob, type WorkerReply, WorkerReplySchema } from './jobMessages.ts'
import { createRetireFlags, retireSlotOf } from './retireFlags.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

const WORKER_FILE = packageModuleFile('worker/poolWorker')

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
 * Runs HE work in Piscina worker threads, each with its own warm node-seal instance,
 * processed database and key cache, so the main event loop only parses requests and
 * moves bytes. Workers that hit the SEAL-exception budget, run out of WASM memory,
 * overstay a deadline or die are replaced; only the job that was on them fails.
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
  readonly #options: WorkerPoolOptions
  readonly #events: ExecutorEvents
  /** One single-thread pool per worker slot. */
  readonly #pools: Piscina[] = []
  /** The pool each live thread belongs to, by thread id (a replacement gets a new id). */
  readonly #poolOf = new Map<number, Piscina>()
  /** Warm workers by thread id. */
  readonly #warm = new Map<number, WarmInfo>()
  /** Workers being taken out of service (no new work). */
  readonly #retiring = new Set<number>()
  /** See retireFlags.ts: threads that asked to be replaced get no new job. */
  readonly #retireFlags = createRetireFlags()
  #running = 0
  /** Threads running a job now (the scheduler sends each job to a chosen idle thread). */
  readonly #busy = new Set<number>()
  #replacements = 0
  #closing = false
  /**
   * The node's one copy of the search kernel's diagonals, posted to every thread: the
   * first to claim it processes the database into it, the rest and every replacement
   * attach. Held here, so it outlives any thread.
   */
  readonly diagonals = DiagonalMemory.create({ shared: true })

  constructor(options: WorkerPoolOptions) {
    this.#options = options
    this.#events = options.events ?? {}
  }

  /** A thread that died while it built the shared diagonals gives the build up: another thread claims it. */
  #releaseDeadBuilder(
    alive = new Set(this.#pools.flatMap((pool) => pool.threads.map((worker) => worker.threadId))),
  ): void {
    const builder = this.diagonals.builder
    if (builder !== 0 && this.diagonals.state === 'building' && !alive.has(builder - 1)) {
      this.diagonals.release(builder)
    }
  }

  start(): Promise<WarmInfo> {
    const { threads, setup, wasmModule } = this.#options
    return new Promise<WarmInfo>((resolve, reject) => {
      for (let slot = 0; slot < threads; slot++) {
        const pool = new Piscina({
          filename: WORKER_FILE,
          minThreads: 1,
          maxThreads: 1,
          concurrentTasksPerWorker: 1,
          idleTimeout: Number.POSITIVE_INFINITY,
          // Jobs wait here only while this slot's thread is being replaced; they must
          // then start in the order they came (Piscina otherwise re-queues at the back).
          stricterFIFO: true,
          // Idle workers must keep their event loop running (no Atomics.wait between tasks).
          atomics: 'disabled',
          maxQueue: 4,
          // From source, workers run our .ts files and the package condition points them at src/.
          execArgv: [...CHILD_EXEC_ARGV],
          workerData: {
            setup,
            retireFlags: this.#retireFlags,
            diagonals: this.diagonals.memory,
            ...(wasmModule ? { wasmModule } : {}),
          },
        })
        this.#pools.push(pool)
        pool.on('message', (message: unknown) => {
          const event = PoolEventSchema.safeParse(message)
          if (!event.success) return
          if (event.data.type === 'warmFailed') {
            reject(HeError.fromJSON(event.data.error))
            return
          }
          if (event.data.type === 'progress') {
            this.#events.onProgress?.(event.data.workerId, event.data.progress)
            return
          }
          const info = event.data.info
          this.#warm.set(info.worker.threadId, info)
          this.#poolOf.set(info.worker.threadId, pool)
          if (builtLargeHeap(info)) this.#retire(info.worker.threadId, 'sharedBuild')
          this.#events.onWarm?.(info)
          resolve(info)
          this.#events.onCapacity?.()
        })
        // Before the first worker is warm, an error means workers cannot start at all (a
        // bad database file, a broken install): fail start-up. Later, a worker dying with
        // no task on it is simply replaced by Piscina.
        pool.on('error', (error: unknown) => {
          // Piscina may still list the dead thread while it emits: look once it has let it go.
          setImmediate(() => this.#releaseDeadBuilder())
          if (this.#warm.size === 0) reject(new HeError('WORKER_FAILED', `a worker failed to start: ${String(error)}`))
        })
      }
    })
  }

  ready(): boolean {
    return !this.#closing && this.#inService() >= this.#options.threads
  }

  #inServiceId(threadId: number): boolean {
    return !this.#retiring.has(threadId) && Atomics.load(this.#retireFlags, retireSlotOf(threadId)) === 0
  }

  #inService(): number {
    // Piscina's 'workerDestroy' event does not fire in 5.3.2: forget dead threads here.
    const alive = new Set(this.#pools.flatMap((pool) => pool.threads.map((worker) => worker.threadId)))
    let count = 0
    this.#releaseDeadBuilder(alive)
    for (const id of this.#warm.keys()) {
      if (!alive.has(id)) {
        this.#warm.delete(id)
        this.#poolOf.delete(id)
        this.#retiring.delete(id)
      } else if (this.#inServiceId(id)) count++
    }
    return count
  }

  freeSlots(): number {
    if (this.#closing) return 0
    return Math.max(0, this.#inService() - this.#running)
  }

  #idleThreads(): number[] {
    if (this.#closing) return []
    this.#inService()
    return [...this.#warm.keys()].filter((id) => this.#inServiceId(id) && !this.#busy.has(id))
  }

  idleWorkers(): string[] {
    return this.#idleThreads().map((id) => `thread-${id}`)
  }

  /**
   * The thread a job runs on: the one asked for when it is free, else any free one.
   * The scheduler only submits while a thread is free, so the last resort (queueing on
   * the first slot until its thread is back) is for a thread lost in between.
   */
  #placement(workerId: string | undefined): { thread: number | undefined; pool: Piscina } {
    const idle = this.#idleThreads()
    const asked = workerId?.startsWith('thread-') ? Number(workerId.slice('thread-'.length)) : undefined
    const thread = asked !== undefined && idle.includes(asked) ? asked : idle[0]
    const pool = thread === undefined ? undefined : this.#poolOf.get(thread)
    if (pool) return { thread, pool }
    const first = this.#pools[0]
    if (!first) throw new HeError('INTERNAL', 'the worker pool is not started')
    return { thread: undefined, pool: first }
  }

  async run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply> {
    const { thread, pool } = this.#placement(workerId)
    this.#running++
    if (thread !== undefined) this.#busy.add(thread)
    try {
      const reply = WorkerReplySchema.parse(await pool.run(job, { signal: deadline }))
      if (reply.recycle) this.#retire(reply.worker.threadId, reply.recycle)
      return reply
    } catch (error) {
      if (deadline.aborted) {
        // Piscina terminated the thread the job was running on.
        this.#replaced('unknown', 'timeout')
        throw new HeError('TIMEOUT', 'the job ran past the request timeout; its worker was replaced', { cause: error })
      }
      if (error instanceof HeError) throw error
      this.#replaced('unknown', 'crashed')
      throw new HeError('WORKER_FAILED', 'the worker running this job died; it is being replaced', { cause: error })
    } finally {
      this.#running--
      if (thread !== undefined) this.#busy.delete(thread)
      this.#events.onCapacity?.()
    }
  }

  recycle(workerId: string, reason: ReplacementReason): boolean {
    const thread = Number(workerId.slice('thread-'.length))
    if (!workerId.startsWith('thread-') || !this.#idleThreads().includes(thread)) return false
    this.#retire(thread, reason)
    return true
  }

  /**
   * Takes a worker out of service right after its reply (or, to make room, while idle). The scheduler only sends a
   * job to a free warm worker, so no job is waiting for this thread when it is
   * terminated; its pool starts a replacement (minThreads).
   */
  #retire(threadId: number, reason: ReplacementReason): void {
    this.#retiring.add(threadId)
    const thread = this.#poolOf.get(threadId)?.threads.find((worker) => worker.threadId === threadId)
    void thread?.terminate()
    this.#replaced(`thread-${threadId}`, reason)
  }

  #replaced(workerId: string, reason: ReplacementReason): void {
    this.#replacements++
    this.#events.onReplaced?.(workerId, reason)
  }

  status(): ExecutorStatus {
    return {
      mode: 'pool',
      size: this.#options.threads,
      warm: this.#inService(),
      running: this.#running,
      replacements: this.#replacements,
    }
  }

  async close(): Promise<void> {
    this.#closing = true
    await Promise.all(this.#pools.map((pool) => pool.close()))
  }
}
