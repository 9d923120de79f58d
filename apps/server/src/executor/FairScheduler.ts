import { HeError } from '@sealbox/he-core'
import type { Executor } from './Executor.ts'
import type { WorkerJob, WorkerReply } from './jobMessages.ts'

/** Options of the scheduler in front of an executor. */
export interface FairSchedulerOptions {
  executor: Executor
  /** Jobs waiting, all tenants together; beyond it submissions are refused (OVERLOADED). */
  maxQueued: number
  /** Jobs one tenant may have waiting. */
  maxQueuedPerTenant: number
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
  enqueuedAt: number
  deadlineAt: number
  resolve(value: Scheduled): void
  reject(error: unknown): void
  cleanup(): void
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

  constructor(options: FairSchedulerOptions) {
    this.#executor = options.executor
    this.#maxQueued = options.maxQueued
    this.#maxPerTenant = options.maxQueuedPerTenant
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

  /** Starts waiting jobs while the executor has free slots. */
  pump(): void {
    while (this.#queued > 0 && this.#executor.freeSlots() > 0) {
      const entry = this.#next()
      if (entry) this.#start(entry)
    }
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

  #start(entry: Entry): void {
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
      .run(entry.job, deadline.signal)
      .then(
        (reply) => {
          this.#avgJobMs = 0.8 * this.#avgJobMs + 0.2 * (performance.now() - started)
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
