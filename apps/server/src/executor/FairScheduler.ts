import { HeError } from '@sealbox/he-core'
import { chooseWorker, type SchedulingPolicy } from './chooseWorker.ts'
import type { Executor } from './Executor.ts'
import type { WorkerJob, WorkerReply } from './jobMessages.ts'
import type { KeyBytesCache } from './KeyBytesCache.ts'

/** Options of the scheduler in front of an executor. */
export interface FairSchedulerOptions {
  executor: Executor
  /** Jobs waiting, all tenants together; beyond it submissions are refused (OVERLOADED). */
  maxQueued: number
  /** Jobs one tenant may have waiting. */
  maxQueuedPerTenant: number
  /** How a job's worker is chosen when the executor lets the scheduler choose (default affinity). */
  scheduling?: SchedulingPolicy
  /** The node's cache of full-form key bytes, sent with a job to a worker that lacks its keys. */
  bytesCache?: KeyBytesCache
}

/** How to run one submission. */
export interface SubmitOptions {
  /** The client went away: cancels the job while it waits (a running job finishes). */
  signal?: AbortSignal
  /** Milliseconds from now until the whole request times out, queue wait included. */
  timeoutMs: number
}

/** A finished job and how long it waited for a worker. */
export interface Scheduled {
  reply: WorkerReply
  queueMs: number
}

interface Entry {
  tenant: string
  job: WorkerJob
  /** `tenant/sha256` of the job's evaluation keys (what a worker may already hold). */
  keys: string | undefined
  /** Times a later job went first (affinity); bounded so no job waits for long. */
  bypassed: number
  enqueuedAt: number
  deadlineAt: number
  resolve(value: Scheduled): void
  reject(error: unknown): void
  cleanup(): void
}

/** Tenants (queue heads) the worker choice looks at, in fair order. */
const LOOKAHEAD = 8
/** Times a job may be passed over for locality before it must go next. */
const MAX_BYPASS = 4

/** `tenant/sha256` of a job's stored keys. */
function keysOf(job: WorkerJob): string | undefined {
  if ((job.type === 'search' || job.type === 'evaluate') && job.keys) return `${job.keys.tenant}/${job.keys.sha256}`
  return undefined
}

/**
 * A bounded queue that hands jobs to an executor fairly: one FIFO per tenant, served
 * round-robin, so a tenant with a hundred queued searches delays another tenant's
 * single search by at most one job per worker. (Piscina's own queue is not even
 * FIFO-fair without `stricterFIFO`; we keep the executor's queue empty and decide
 * the order here.) Full queue → OVERLOADED with a Retry-After estimate; a deadline
 * or a client abort removes a waiting job; the deadline also bounds a running one.
 */
export class FairScheduler {
  readonly #executor: Executor
  readonly #maxQueued: number
  readonly #maxPerTenant: number
  readonly #queues = new Map<string, Entry[]>()
  /** Tenants with waiting jobs, in service order. */
  readonly #ring: string[] = []
  #queued = 0
  #running = 0
  #closing = false
  #idleWaiters: Array<() => void> = []
  /** Moving average of job run time, for Retry-After. */
  #avgJobMs = 50
  readonly #scheduling: SchedulingPolicy
  readonly #bytesCache: KeyBytesCache | undefined
  /** Which keys (`tenant/sha256`) each worker holds deserialized, mirrored from replies. */
  readonly #holds = new Map<string, Set<string>>()
  #lastWorker = ''

  constructor(options: FairSchedulerOptions) {
    this.#executor = options.executor
    this.#maxQueued = options.maxQueued
    this.#maxPerTenant = options.maxQueuedPerTenant
    this.#scheduling = options.scheduling ?? 'affinity'
    this.#bytesCache = options.bytesCache
  }

  get executor(): Executor {
    return this.#executor
  }

  /** Jobs waiting now. */
  get queued(): number {
    return this.#queued
  }

  /** Jobs handed to the executor and not finished. */
  get running(): number {
    return this.#running
  }

  /** Waiting jobs per tenant (for metrics). */
  queuedByTenant(): Map<string, number> {
    return new Map([...this.#queues].map(([tenant, queue]) => [tenant, queue.length]))
  }

  /** Queues `job` for `tenant`; resolves with the worker's reply. */
  submit(tenant: string, job: WorkerJob, options: SubmitOptions): Promise<Scheduled> {
    if (this.#closing) {
      return Promise.reject(this.#overloaded('the server is shutting down', 5))
    }
    if (options.signal?.aborted) return Promise.reject(new HeError('CANCELLED', 'the client went away'))
    const queue = this.#queues.get(tenant) ?? []
    if (this.#queued >= this.#maxQueued) {
      return Promise.reject(this.#overloaded(`the job queue is full (${this.#maxQueued} waiting)`))
    }
    if (queue.length >= this.#maxPerTenant) {
      return Promise.reject(this.#overloaded(`this tenant already has ${this.#maxPerTenant} jobs waiting`))
    }
    return new Promise<Scheduled>((resolve, reject) => {
      const now = performance.now()
      const entry: Entry = {
        tenant,
        job,
        keys: keysOf(job),
        bypassed: 0,
        enqueuedAt: now,
        deadlineAt: now + options.timeoutMs,
        resolve,
        reject,
        cleanup: () => {},
      }
      const timer = setTimeout(
        () => this.#dropWaiting(entry, new HeError('TIMEOUT', 'timed out waiting for a free worker')),
        options.timeoutMs,
      )
      const onAbort = () => this.#dropWaiting(entry, new HeError('CANCELLED', 'the client went away'))
      options.signal?.addEventListener('abort', onAbort, { once: true })
      entry.cleanup = () => {
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
      }
      if (queue.length === 0) {
        this.#queues.set(tenant, queue)
        this.#ring.push(tenant)
      }
      queue.push(entry)
      this.#queued++
      this.pump()
    })
  }

  /**
   * Starts waiting jobs while the executor has free slots. When the executor lets us
   * choose the worker, `chooseWorker` pairs an idle worker with a job among the first
   * tenants in fair order (affinity: the worker that holds the job's keys).
   */
  pump(): void {
    while (this.#queued > 0 && this.#executor.freeSlots() > 0) {
      const idle = this.#executor.idleWorkers?.()
      if (!idle) {
        const entry = this.#next()
        if (entry) this.#start(entry)
        continue
      }
      if (idle.length === 0) return
      const heads = this.#ring.slice(0, LOOKAHEAD).map((tenant) => this.#queues.get(tenant)?.[0] as Entry)
      const choice = chooseWorker(this.#scheduling, heads, idle, this.#holds, this.#lastWorker, MAX_BYPASS)
      const entry = heads[choice.job] as Entry
      for (let i = 0; i < choice.job; i++) (heads[i] as Entry).bypassed++
      this.#take(entry)
      this.#lastWorker = choice.worker
      this.#start(entry, choice.worker)
    }
  }

  /** Removes a tenant's head entry; the tenant goes to the back of the ring if it has more. */
  #take(entry: Entry): void {
    const queue = this.#queues.get(entry.tenant)
    queue?.shift()
    const at = this.#ring.indexOf(entry.tenant)
    if (at !== -1) this.#ring.splice(at, 1)
    if (queue && queue.length > 0) this.#ring.push(entry.tenant)
    else this.#queues.delete(entry.tenant)
    this.#queued--
  }

  /** Mirrors a worker's key cache and fills the bytes cache from a reply. */
  #learn(reply: WorkerReply): void {
    if (reply.cachedKeys) {
      // Cache keys are tenant/sha256/fingerprint; placement is per key set version.
      this.#holds.set(reply.worker.workerId, new Set(reply.cachedKeys.map((key) => key.split('/', 2).join('/'))))
    }
    if (reply.fullFormKeys) this.#bytesCache?.set(reply.fullFormKeys.key, reply.fullFormKeys.bytes)
  }

  /** The job to send to `worker`: with full-form key bytes when it does not hold the keys. */
  #withKeyBytes(entry: Entry, worker: string | undefined): WorkerJob {
    const job = entry.job
    if (!worker || !entry.keys || !this.#bytesCache || this.#holds.get(worker)?.has(entry.keys)) return job
    if (job.type !== 'search' && job.type !== 'evaluate') return job
    const keyBytes = this.#bytesCache.get(entry.keys)
    return keyBytes ? { ...job, keyBytes } : job
  }

  #next(): Entry | undefined {
    const tenant = this.#ring.shift()
    if (tenant === undefined) return undefined
    const queue = this.#queues.get(tenant)
    const entry = queue?.shift()
    if (queue && queue.length > 0) this.#ring.push(tenant)
    else this.#queues.delete(tenant)
    if (entry) this.#queued--
    return entry
  }

  #start(entry: Entry, worker?: string): void {
    entry.cleanup()
    const started = performance.now()
    const queueMs = started - entry.enqueuedAt
    const deadline = new AbortController()
    const remaining = Math.max(1, entry.deadlineAt - started)
    const timer = setTimeout(
      () => deadline.abort(new HeError('TIMEOUT', 'the job ran past the request timeout')),
      remaining,
    )
    this.#running++
    this.#executor
      .run(this.#withKeyBytes(entry, worker), deadline.signal, worker)
      .then(
        (reply) => {
          const elapsed = performance.now() - started
          this.#avgJobMs = 0.8 * this.#avgJobMs + 0.2 * elapsed
          this.#learn(reply)
          // Posting the job and its reply between threads (or processes): what the worker did not spend.
          if (reply.runMs !== undefined) reply.timings.transfer = Math.max(0, elapsed - reply.runMs)
          if (reply.cpuMs !== undefined) reply.timings.cpu = reply.cpuMs
          entry.resolve({ reply, queueMs })
        },
        (error: unknown) => entry.reject(error),
      )
      .finally(() => {
        clearTimeout(timer)
        this.#running--
        this.pump()
        this.#notifyIdle()
      })
  }

  #dropWaiting(entry: Entry, error: HeError): void {
    const queue = this.#queues.get(entry.tenant)
    const index = queue?.indexOf(entry) ?? -1
    if (!queue || index === -1) return
    queue.splice(index, 1)
    this.#queued--
    if (queue.length === 0) {
      this.#queues.delete(entry.tenant)
      const at = this.#ring.indexOf(entry.tenant)
      if (at !== -1) this.#ring.splice(at, 1)
    }
    entry.cleanup()
    entry.reject(error)
    this.#notifyIdle()
  }

  #overloaded(message: string, minSeconds = 1): HeError {
    const slots = Math.max(1, this.#executor.status().size)
    const drainSeconds = Math.ceil(((this.#queued + this.#running) / slots) * (this.#avgJobMs / 1000))
    const retryAfterSeconds = Math.min(60, Math.max(minSeconds, drainSeconds))
    return new HeError('OVERLOADED', message, { details: { retryAfterSeconds } })
  }

  #notifyIdle(): void {
    if (this.#queued > 0 || this.#running > 0) return
    for (const wake of this.#idleWaiters.splice(0)) wake()
  }

  /** Refuses new jobs and resolves when every waiting and running job is done. */
  drain(): Promise<void> {
    this.#closing = true
    if (this.#queued === 0 && this.#running === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }
}
