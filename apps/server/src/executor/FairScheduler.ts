import { HeError } from '@sealbox/he-core'
import { chooseWorker, type SchedulingPolicy } from './chooseWorker.ts'
import { DeficitRoundRobin } from './DeficitRoundRobin.ts'
import type { Executor } from './Executor.ts'
import type { WorkerJob, WorkerStats } from './jobMessages.ts'
import type { KeyBytesCache } from './KeyBytesCache.ts'
import { KeyPlacement } from './KeyPlacement.ts'
import { type KeySetRef, keySetCacheKey } from './keySetRef.ts'
import type { QueuedJob } from './QueuedJob.ts'
import { queueRoomFor } from './queueRoomFor.ts'
import { refuseUnstartable } from './refuseUnstartable.ts'
import { SlotThroughput } from './SlotThroughput.ts'
import type { Scheduled, SubmitOptions } from './SubmitOptions.ts'
import { WorkerHeaps } from './WorkerHeaps.ts'

/** Options of the scheduler in front of an executor. */
export interface FairSchedulerOptions {
  executor: Executor
  /** Jobs waiting, all tenants together; beyond it submissions are refused (OVERLOADED). */
  maxQueued: number
  /** Jobs one tenant — or the anonymous sessions of one client address together — may have waiting. */
  maxQueuedPerTenant: number
  /**
   * How long queued work may take, ms (REQUEST_TIMEOUT_MS): the queue holds at most that
   * much estimated work per slot, and one lane at most its fair share of it. Default: no bound.
   */
  maxQueuedMs?: number
  /** How a job's worker is chosen when the executor lets the scheduler choose (default affinity). */
  scheduling?: SchedulingPolicy
  /** The node's cache of full-form key bytes, sent with a job to a worker that lacks its keys. */
  bytesCache?: KeyBytesCache
  /**
   * Cost units a tenant's deficit grows by per round of deficit round-robin (default
   * 10). Any positive value is fair in cost; smaller ones interleave tenants finer.
   */
  quantum?: number
  /**
   * The WASM heap one worker may reach (WORKER_HEAP_BYTES): a job runs on a worker only
   * when its estimated peak fits on top of the heap the worker last reported. Default: no
   * budget.
   */
  workerHeapBudget?: number
}

/** Tenants (queue heads) the worker choice looks at, in fair order. */
const LOOKAHEAD = 8
/** Times a job may be passed over for locality before it must go next. */
const MAX_BYPASS = 4
/** Longest Retry-After we announce, seconds (a client should not come back in hours). */
const MAX_RETRY_AFTER_SECONDS = 600

/** A job handed to the executor: what it was estimated to cost and when it started. */
interface RunningJob {
  cost: number
  startedAt: number
}

/**
 * A bounded queue that hands jobs to an executor fairly *in cost*: one FIFO per
 * tenant, served by deficit round-robin (DRR, `DeficitRoundRobin`). Every job carries its estimated work
 * in cost units (he-core's `programCost` / `searchCost`); each round adds a quantum
 * to every waiting tenant's deficit, and a tenant's head job may start once its
 * deficit covers the job's cost. A tenant flooding the queue with maximum-cost
 * programs therefore gets one of them per that much of everyone else's work, and
 * another tenant's search waits for at most about one such program (plus the ones
 * running). The order is decided here, above every executor (threads, the main loop,
 * child processes), and a job goes to an executor only when it has a free worker, so
 * no executor's own queue (Piscina's included) reorders anything. Full queue → OVERLOADED with a Retry-After from the queued and running cost
 * and the measured throughput; a deadline or a client abort removes a waiting job;
 * the deadline also bounds a running one.
 */
export class FairScheduler {
  readonly #executor: Executor
  readonly #maxQueued: number
  readonly #maxPerTenant: number
  readonly #waiting: DeficitRoundRobin<QueuedJob>
  /** Waiting jobs per tenant (a tenant's lane may be its address's, shared). */
  readonly #tenantJobs = new Map<string, number>()
  readonly #maxQueuedMs: number
  readonly #runningJobs = new Set<RunningJob>()
  #closing = false
  #idleWaiters: Array<() => void> = []
  /** The measured throughput of one slot: what estimates, bounds and Retry-After are computed at. */
  readonly throughput = new SlotThroughput()
  readonly #scheduling: SchedulingPolicy
  readonly #placement: KeyPlacement
  #lastWorker = ''
  readonly #heaps: WorkerHeaps

  constructor(options: FairSchedulerOptions) {
    this.#executor = options.executor
    this.#maxQueued = options.maxQueued
    this.#maxPerTenant = options.maxQueuedPerTenant
    this.#scheduling = options.scheduling ?? 'affinity'
    this.#placement = new KeyPlacement(options.bytesCache)
    this.#waiting = new DeficitRoundRobin(options.quantum ?? 10)
    this.#heaps = new WorkerHeaps(options.workerHeapBudget ?? Number.POSITIVE_INFINITY)
    this.#maxQueuedMs = options.maxQueuedMs ?? Number.POSITIVE_INFINITY
  }

  /** A worker became warm: its heap is a fresh worker's (a worker recycled to make room has been replaced). */
  workerWarm(worker: WorkerStats): void {
    this.#heaps.warm(worker)
    this.pump()
  }

  get executor(): Executor {
    return this.#executor
  }

  /** Jobs waiting now. */
  get queued(): number {
    return this.#waiting.size
  }

  /** Jobs handed to the executor and not finished. */
  get running(): number {
    return this.#runningJobs.size
  }

  /** Cost units waiting now. */
  get queuedCost(): number {
    return this.#waiting.cost
  }

  /** Waiting jobs per tenant (for metrics). */
  queuedByTenant(): Map<string, number> {
    return new Map(this.#tenantJobs)
  }

  /** Whether some worker holds `keySet` deserialized (as its last reply said). */
  holdsKeys(keySet: KeySetRef): boolean {
    const key = keySetCacheKey(keySet)
    for (const held of this.#placement.holds.values()) if (held.has(key)) return true
    return false
  }

  /** Cost units the queue holds at most: `maxQueuedMs` of every slot at the measured throughput. */
  #costCapacity(): number {
    const slots = Math.max(1, this.#executor.status().size)
    return this.#maxQueuedMs * slots * this.throughput.perMs
  }

  /**
   * Seconds until the executor could have worked off what is queued and running now:
   * the cost still to do ÷ (slots × measured units per second). A running job counts
   * with what its estimate says is left of it.
   */
  drainSeconds(): number {
    const slots = Math.max(1, this.#executor.status().size)
    const perMs = this.throughput.perMs
    const now = performance.now()
    let running = 0
    for (const job of this.#runningJobs) running += Math.max(0, job.cost - (now - job.startedAt) * perMs)
    return (this.#waiting.cost + running) / slots / perMs / 1000
  }

  /**
   * Throws OVERLOADED (with Retry-After) when `tenant` could not queue one more job of
   * `cost` in `lane` now. Nothing changes: `submit` makes the room it finds here.
   */
  assertCapacity(tenant: string, lane = tenant, cost = 1): void {
    this.#roomFor(tenant, lane, Math.max(0, cost))
  }

  /** The waiting jobs to push out so `tenant` may queue a job of `cost` in `lane`, or OVERLOADED (`queueRoomFor`). */
  #roomFor(tenant: string, lane: string, cost: number): QueuedJob[] {
    if (this.#closing) throw this.#overloaded('the server is shutting down', 5)
    return queueRoomFor(tenant, lane, cost, {
      waiting: this.#waiting,
      tenantJobs: this.#tenantJobs.get(tenant) ?? 0,
      maxQueued: this.#maxQueued,
      maxPerTenant: this.#maxPerTenant,
      capacity: this.#costCapacity(),
      estimateMs: (units) => this.throughput.estimateMs(units),
      overloaded: (message) => this.#overloaded(message),
    })
  }

  /** Queues `job` for `tenant`; resolves with the worker's reply. */
  submit(tenant: string, job: WorkerJob, options: SubmitOptions): Promise<Scheduled> {
    if (options.signal?.aborted) return Promise.reject(new HeError('CANCELLED', 'the client went away'))
    const cost = Math.max(0, options.cost ?? 1)
    const lane = options.lane ?? tenant
    let pushOut: QueuedJob[]
    try {
      refuseUnstartable(this.throughput.estimateMs(cost), options.timeoutMs)
      pushOut = this.#roomFor(tenant, lane, cost)
    } catch (error) {
      return Promise.reject(error)
    }
    for (const entry of pushOut) {
      this.#dropWaiting(
        entry,
        this.#overloaded('this job was pushed out of the full queue by a tenant holding less than its fair share'),
      )
    }
    return new Promise<Scheduled>((resolve, reject) => {
      const now = performance.now()
      const jobKeys = KeyPlacement.keysOf(job)
      const entry: QueuedJob = {
        tenant,
        lane: tenant,
        party: lane,
        job,
        jobKeys,
        keys: jobKeys?.keys,
        bypassed: 0,
        cost,
        peakHeapBytes: Math.max(0, options.peakHeapBytes ?? 0),
        hooks: { beforeRun: options.beforeRun, afterRun: options.afterRun },
        enqueuedAt: now,
        deadlineAt: now + options.timeoutMs,
        workDeadlineAt: now + Math.max(options.timeoutMs, options.workTimeoutMs ?? 0),
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
      this.#waiting.push(entry)
      this.#tenantJobs.set(tenant, (this.#tenantJobs.get(tenant) ?? 0) + 1)
      this.pump()
    })
  }

  /**
   * Starts waiting jobs while the executor has free slots: `chooseWorker` pairs an idle
   * worker with a job among the first tenants in fair order (affinity: the worker that
   * holds the job's keys), for every executor alike — only where the job's estimated
   * peak heap fits on top of the worker's. When no head fits any idle worker, one is
   * recycled to make room (`WorkerHeaps.makeRoom`) and the jobs wait for it.
   */
  pump(): void {
    while (this.#waiting.size > 0 && this.#executor.freeSlots() > 0) {
      const idle = this.#executor.idleWorkers()
      if (idle.length === 0) return
      const heads = this.#waiting.eligibleHeads(LOOKAHEAD)
      const choice = chooseWorker(
        this.#scheduling,
        heads,
        idle,
        this.#placement.holds,
        this.#lastWorker,
        MAX_BYPASS,
        (job, worker) => this.#heaps.fits((heads[job] as QueuedJob).peakHeapBytes, worker),
      )
      if (!choice) {
        this.#heaps.makeRoom(idle, this.#executor)
        return
      }
      const entry = heads[choice.job] as QueuedJob
      for (let i = 0; i < choice.job; i++) (heads[i] as QueuedJob).bypassed++
      this.#waiting.take(entry)
      this.#forget(entry)
      this.#lastWorker = choice.worker
      this.#heaps.busy(choice.worker)
      this.#start(entry, choice.worker)
    }
  }

  #start(entry: QueuedJob, worker?: string): void {
    entry.cleanup()
    try {
      // A job that cannot finish before its request's deadline is answered 504 now, not
      // started to be killed with its worker when the deadline passes.
      refuseUnstartable(this.throughput.estimateMs(entry.cost), entry.deadlineAt - performance.now())
      entry.hooks.beforeRun?.()
    } catch (error) {
      entry.reject(error)
      this.#notifyIdle()
      return
    }
    const started = performance.now()
    const queueMs = started - entry.enqueuedAt
    const deadline = new AbortController()
    // The worker's own deadline: the request's, or the job's full time from its submission
    // when the body took most of the request's (never a worker killed for a slow upload).
    const remaining = Math.max(1, Math.max(entry.deadlineAt, entry.workDeadlineAt) - started)
    const timer = setTimeout(
      () => deadline.abort(new HeError('TIMEOUT', 'the job ran past the request timeout')),
      remaining,
    )
    // The client is answered at its request's deadline all the same: when the body took part of
    // it, the job may go on (its worker kept) past the time the client was promised an answer.
    const answerBy = entry.deadlineAt - started
    const answerTimer =
      answerBy < remaining
        ? setTimeout(
            () => entry.reject(new HeError('TIMEOUT', 'the request ran past its deadline (REQUEST_TIMEOUT_MS)')),
            Math.max(1, answerBy),
          )
        : undefined
    const running: RunningJob = { cost: entry.cost, startedAt: started }
    this.#runningJobs.add(running)
    this.#executor
      .run(this.#placement.withKeyBytes(entry.job, entry.jobKeys, worker), deadline.signal, worker)
      .then(
        (reply) => {
          const elapsed = performance.now() - started
          // A failed job stopped early (bad input, refused key): its estimate says nothing of speed.
          if (reply.result.type !== 'failed') this.throughput.learn(entry.cost, elapsed)
          this.#placement.learn(reply)
          this.#heaps.learn(reply)
          entry.hooks.afterRun?.(reply)
          // Posting the job and its reply between threads (or processes): what the worker did not spend.
          if (reply.runMs !== undefined) reply.timings.transfer = Math.max(0, elapsed - reply.runMs)
          if (reply.cpuMs !== undefined) reply.timings.cpu = reply.cpuMs
          entry.resolve({ reply, queueMs })
        },
        (error: unknown) => entry.reject(error),
      )
      .finally(() => {
        clearTimeout(timer)
        clearTimeout(answerTimer)
        this.#runningJobs.delete(running)
        this.pump()
        this.#notifyIdle()
      })
  }

  /** A job left the queue (started, dropped or pushed out): its tenant holds one fewer. */
  #forget(entry: QueuedJob): void {
    const held = (this.#tenantJobs.get(entry.tenant) ?? 1) - 1
    if (held > 0) this.#tenantJobs.set(entry.tenant, held)
    else this.#tenantJobs.delete(entry.tenant)
  }

  #dropWaiting(entry: QueuedJob, error: HeError): void {
    if (!this.#waiting.remove(entry)) return
    this.#forget(entry)
    entry.cleanup()
    entry.reject(error)
    this.#notifyIdle()
  }

  #overloaded(message: string, minSeconds = 1): HeError {
    const retryAfterSeconds = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(minSeconds, Math.ceil(this.drainSeconds())))
    return new HeError('OVERLOADED', `${message}; the work ahead takes about ${retryAfterSeconds} s`, {
      details: { retryAfterSeconds },
    })
  }

  #notifyIdle(): void {
    if (this.#waiting.size > 0 || this.#runningJobs.size > 0) return
    for (const wake of this.#idleWaiters.splice(0)) wake()
  }

  /** Refuses new jobs and resolves when every waiting and running job is done. */
  drain(): Promise<void> {
    this.#closing = true
    if (this.#waiting.size === 0 && this.#runningJobs.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }
}
