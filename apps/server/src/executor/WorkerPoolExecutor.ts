import { fileURLToPath } from 'node:url'
import { HeError } from '@sealbox/he-core'
import { Piscina } from 'piscina'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import { PoolEventSchema, type WarmInfo, type WorkerJob, type WorkerReply, WorkerReplySchema } from './jobMessages.ts'
import { createRetireFlags, retireSlotOf } from './retireFlags.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

const WORKER_FILE = fileURLToPath(new URL('../worker/poolWorker.ts', import.meta.url))

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
 */
export class WorkerPoolExecutor implements Executor {
  readonly mode = 'pool' as const
  readonly #options: WorkerPoolOptions
  readonly #events: ExecutorEvents
  #pool: Piscina | undefined
  /** Warm workers by thread id. */
  readonly #warm = new Map<number, WarmInfo>()
  /** Workers being taken out of service (no new work). */
  readonly #retiring = new Set<number>()
  /** See retireFlags.ts: the load balancer skips threads that asked to be replaced. */
  readonly #retireFlags = createRetireFlags()
  #running = 0
  /** Threads running a job now (the scheduler sends each job to a chosen idle thread). */
  readonly #busy = new Set<number>()
  #replacements = 0
  #closing = false

  constructor(options: WorkerPoolOptions) {
    this.#options = options
    this.#events = options.events ?? {}
  }

  start(): Promise<WarmInfo> {
    const { threads, setup, wasmModule } = this.#options
    return new Promise<WarmInfo>((resolve, reject) => {
      const pool = new Piscina({
        filename: WORKER_FILE,
        minThreads: threads,
        maxThreads: threads,
        concurrentTasksPerWorker: 1,
        idleTimeout: Number.POSITIVE_INFINITY,
        // Measured with 1 thread and 16 clients: without it some clients finished 1 job
        // while others finished 23. The FairScheduler keeps this queue nearly empty, but
        // while a worker is being replaced jobs do wait here, and they must wait in order.
        stricterFIFO: true,
        // Idle workers must keep their event loop running (no Atomics.wait between tasks).
        atomics: 'disabled',
        maxQueue: threads * 4,
        // Workers run our .ts sources directly; the package condition points them at src/.
        execArgv: ['--conditions=@sealbox/source'],
        workerData: { setup, retireFlags: this.#retireFlags, ...(wasmModule ? { wasmModule } : {}) },
        loadBalancer: (task, workers) => {
          // A job sent to a chosen thread (affinity) runs there; if that thread is not free
          // (gone, or not yet ready after a replacement), on any free one: never wait here.
          const options = (task as unknown as Record<symbol, { threadId?: number } | null>)[Piscina.queueOptionsSymbol]
          const target = options?.threadId
          if (target !== undefined) {
            const chosen = workers.find((worker) => worker.id === target)
            if (chosen && chosen.currentUsage === 0 && !chosen.terminating && this.#inServiceId(chosen.id))
              return chosen
          }
          for (const worker of workers) {
            if (worker.currentUsage === 0 && !worker.terminating && this.#inServiceId(worker.id)) return worker
          }
          return null
        },
      })
      this.#pool = pool
      pool.on('message', (message: unknown) => {
        const event = PoolEventSchema.safeParse(message)
        if (!event.success) return
        if (event.data.type === 'warmFailed') {
          reject(HeError.fromJSON(event.data.error))
          return
        }
        const info = event.data.info
        this.#warm.set(info.worker.threadId, info)
        this.#events.onWarm?.(info)
        resolve(info)
        this.#events.onCapacity?.()
      })
      // Before the first worker is warm, an error means workers cannot start at all (a
      // bad database file, a broken install): fail start-up. Later, a worker dying with
      // no task on it is simply replaced by Piscina.
      pool.on('error', (error: unknown) => {
        if (this.#warm.size === 0) reject(new HeError('WORKER_FAILED', `a worker failed to start: ${String(error)}`))
      })
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
    const alive = new Set(this.#pool?.threads.map((worker) => worker.threadId))
    let count = 0
    for (const id of this.#warm.keys()) {
      if (!alive.has(id)) {
        this.#warm.delete(id)
        this.#retiring.delete(id)
      } else if (this.#inServiceId(id)) count++
    }
    return count
  }

  freeSlots(): number {
    if (this.#closing) return 0
    return Math.max(0, this.#inService() - this.#running)
  }

  idleWorkers(): string[] {
    if (this.#closing) return []
    this.#inService()
    const idle: string[] = []
    for (const id of this.#warm.keys()) if (this.#inServiceId(id) && !this.#busy.has(id)) idle.push(`thread-${id}`)
    return idle
  }

  async run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply> {
    const pool = this.#pool
    if (!pool) throw new HeError('INTERNAL', 'the worker pool is not started')
    const target = workerId?.startsWith('thread-') ? Number(workerId.slice('thread-'.length)) : undefined
    this.#running++
    if (target !== undefined) this.#busy.add(target)
    try {
      const task = target === undefined ? job : { ...job, [Piscina.queueOptionsSymbol]: { threadId: target } }
      const reply = WorkerReplySchema.parse(await pool.run(task, { signal: deadline }))
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
      if (target !== undefined) this.#busy.delete(target)
      this.#events.onCapacity?.()
    }
  }

  /**
   * Takes a worker out of service right after its reply. The scheduler never hands
   * Piscina more jobs than there are free warm workers, so no job is waiting for this
   * thread when it is terminated; Piscina starts a replacement (minThreads).
   */
  #retire(threadId: number, reason: ReplacementReason): void {
    this.#retiring.add(threadId)
    const thread = this.#pool?.threads.find((worker) => worker.threadId === threadId)
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
    await this.#pool?.close()
  }
}
