import { COST_UNIT_MS, HeError } from '@sealbox/he-core'
import { chooseWorker, type SchedulingPolicy } from './chooseWorker.ts'
import { DeficitRoundRobin } from './DeficitRoundRobin.ts'
import type { Executor } from './Executor.ts'
import type { WorkerJob, WorkerReply, WorkerStats } from './jobMessages.ts'
import type { KeyBytesCache } from './KeyBytesCache.ts'
import { type JobKeys, KeyPlacement } from './KeyPlacement.ts'
import { type KeySetRef, keySetCacheKey } from './keySetRef.ts'

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

interface Entry {
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

/** Tenants (queue heads) the worker choice looks at, in fair order. */
const LOOKAHEAD = 8
/** Times a job may be passed over for locality before it must go next. */
const MAX_BYPASS = 4
/** Workers whose heap the scheduler remembers (far more than any executor runs at once). */
const MAX_REMEMBERED_WORKERS = 256
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
  readonly #waiting: DeficitRoundRobin<Entry>
  /** Waiting jobs per tenant (a tenant's lane may be its address's, shared). */
  readonly #tenantJobs = new Map<string, number>()
  readonly #maxQueuedMs: number
  readonly #runningJobs = new Set<RunningJob>()
  #closing = false
  #idleWaiters: Array<() => void> = []
  /**
   * Cost units finished and the slot milliseconds they took, both decayed per job:
   * their ratio is the measured throughput of one slot (weighted by time, so a
   * mis-estimated tiny job cannot swing it). The prior is the model's COST_UNIT_MS per unit.
   */
  #doneCost = 20
  #doneMs = 20 * COST_UNIT_MS
  readonly #scheduling: SchedulingPolicy
  readonly #placement: KeyPlacement
  #lastWorker = ''
  readonly #heapBudget: number
  /** The WASM heap each worker reported last (when warm, then after every job). */
  readonly #heaps = new Map<string, number>()
  /** Workers warm and not yet given a job: a job that fits no worker may still run on a fresh one. */
  readonly #fresh = new Set<string>()
  /** A worker recycled to make room for a job, until a fresh worker is warm. */
  #making: string | undefined
  /** The smallest heap a warm worker reported: what a recycled worker comes back with. */
  #freshHeap = Number.POSITIVE_INFINITY

  constructor(options: FairSchedulerOptions) {
    this.#executor = options.executor
    this.#maxQueued = options.maxQueued
    this.#maxPerTenant = options.maxQueuedPerTenant
    this.#scheduling = options.scheduling ?? 'affinity'
    this.#placement = new KeyPlacement(options.bytesCache)
    this.#waiting = new DeficitRoundRobin(options.quantum ?? 10)
    this.#heapBudget = options.workerHeapBudget ?? Number.POSITIVE_INFINITY
    this.#maxQueuedMs = options.maxQueuedMs ?? Number.POSITIVE_INFINITY
  }

  /** A worker became warm: its heap is a fresh worker's (a worker recycled to make room has been replaced). */
  workerWarm(worker: WorkerStats): void {
    if (worker.heapBytes !== undefined) {
      this.#heaps.set(worker.workerId, worker.heapBytes)
      this.#freshHeap = Math.min(this.#freshHeap, worker.heapBytes)
    }
    this.#fresh.add(worker.workerId)
    if (this.#fresh.size > MAX_REMEMBERED_WORKERS) this.#fresh.delete(this.#fresh.values().next().value as string)
    this.#making = undefined
    this.pump()
  }

  /** Keeps the heap a reply reports; a worker replaced after it is forgotten (its replacement reports when warm). */
  #learnHeap(reply: WorkerReply): void {
    const worker = reply.worker.workerId
    this.#heaps.delete(worker)
    if (reply.recycle || reply.worker.heapBytes === undefined) return
    this.#heaps.set(worker, reply.worker.heapBytes)
    // Workers that died without a reply (a deadline, a crash) are never heard of again: keep the newest few.
    if (this.#heaps.size > MAX_REMEMBERED_WORKERS) this.#heaps.delete(this.#heaps.keys().next().value as string)
  }

  /** The heap `worker` reported last, bytes (0 when it never did). */
  heapOf(worker: string): number {
    return this.#heaps.get(worker) ?? 0
  }

  /**
   * Whether `entry` may run on `worker` now: its estimated peak fits on top of the heap
   * the worker reported last, within the budget. A fresh worker takes any job, and so
   * does every worker when not even a fresh one could hold it (an operator may admit
   * jobs above the budget, MAX_JOB_HEAP_BYTES ≥ WORKER_HEAP_BYTES): recycling would not
   * help, and the engine's cap answers 507 if the job really needs more.
   */
  #fits(entry: Entry, worker: string): boolean {
    const peak = entry.peakHeapBytes
    if (peak === 0 || this.#fresh.has(worker)) return true
    const fresh = Number.isFinite(this.#freshHeap) ? this.#freshHeap : 0
    return this.heapOf(worker) + peak <= this.#heapBudget || fresh + peak > this.#heapBudget
  }

  /**
   * No queue head fits an idle worker: the first one in fair order waits while the idle
   * worker with the largest heap is replaced by a fresh one (the executor's own recycling,
   * off every other job's path); one at a time.
   */
  #makeRoom(idle: readonly string[]): void {
    if (this.#making !== undefined || !this.#executor.recycle) return
    const grown = idle.filter((worker) => !this.#fresh.has(worker)).sort((a, b) => this.heapOf(b) - this.heapOf(a))[0]
    if (grown === undefined) return
    if (this.#executor.recycle(grown, 'heapBudget')) {
      this.#making = grown
      this.#heaps.delete(grown)
    }
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

  /** Measured throughput of one executor slot, cost units per second. */
  get unitsPerSecond(): number {
    return (this.#doneCost / this.#doneMs) * 1000
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

  /** Estimated milliseconds of one slot for `cost` units, at the measured throughput. */
  estimateMs(cost: number): number {
    return cost / (this.#doneCost / this.#doneMs)
  }

  /** Cost units the queue holds at most: `maxQueuedMs` of every slot at the measured throughput. */
  #costCapacity(): number {
    const slots = Math.max(1, this.#executor.status().size)
    return this.#maxQueuedMs * slots * (this.#doneCost / this.#doneMs)
  }

  /**
   * Seconds until the executor could have worked off what is queued and running now:
   * the cost still to do ÷ (slots × measured units per second). A running job counts
   * with what its estimate says is left of it.
   */
  drainSeconds(): number {
    const slots = Math.max(1, this.#executor.status().size)
    const perMs = this.#doneCost / this.#doneMs
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

  /**
   * The waiting jobs to push out so `tenant` may queue a job of `cost` in `lane`, or
   * OVERLOADED. Static caps first (TENANT_QUEUE_SIZE per tenant and per address lane),
   * then fair shares: when the queue is full — in jobs (`maxQueued`) or in estimated work
   * (`maxQueuedMs` per slot) — a lane holding less than its share (the queue ÷ lanes
   * waiting, counting this one) takes the place of the newest jobs of the lanes holding
   * the most; a lane at or above its share is refused. A lane with nothing waiting is
   * never refused for cost: one job of any price may wait.
   */
  #roomFor(tenant: string, lane: string, cost: number): Entry[] {
    if (this.#closing) throw this.#overloaded('the server is shutting down', 5)
    if ((this.#tenantJobs.get(tenant) ?? 0) >= this.#maxPerTenant) {
      throw this.#overloaded(`this tenant already has ${this.#maxPerTenant} jobs waiting (TENANT_QUEUE_SIZE)`)
    }
    // The queue's shares are by party (a tenant, or every anonymous session of one address);
    // the round-robin serves tenants.
    const byLane = new Map<string, Entry[]>()
    for (const entries of this.#waiting.entriesByLane().values()) {
      for (const entry of entries) {
        const held = byLane.get(entry.party)
        if (held) held.push(entry)
        else byLane.set(entry.party, [entry])
      }
    }
    for (const entries of byLane.values()) entries.sort((a, b) => a.enqueuedAt - b.enqueuedAt)
    const ownJobs = byLane.get(lane)?.length ?? 0
    if (lane !== tenant && ownJobs >= this.#maxPerTenant) {
      throw this.#overloaded(
        `the sessions of this client address already have ${this.#maxPerTenant} jobs waiting (TENANT_QUEUE_SIZE, shared by an address's anonymous sessions)`,
      )
    }
    const lanes = byLane.size + (ownJobs === 0 ? 1 : 0)
    const pushed: Entry[] = []
    const pushedFrom = new Map<string, number>()
    /** The newest job of the lane holding the most by `measure` (not `lane`), once it is above `share`. */
    const pushOne = (measure: (entries: readonly Entry[], gone: number) => number, share: number): boolean => {
      let target: string | undefined
      let most = share
      for (const [other, entries] of byLane) {
        if (other === lane) continue
        const held = measure(entries, pushedFrom.get(other) ?? 0)
        if (held > most) {
          most = held
          target = other
        }
      }
      if (target === undefined) return false
      const entries = byLane.get(target) as readonly Entry[]
      const gone = pushedFrom.get(target) ?? 0
      pushed.push(entries[entries.length - 1 - gone] as Entry)
      pushedFrom.set(target, gone + 1)
      return true
    }
    if (this.#waiting.size >= this.#maxQueued) {
      const share = Math.max(1, Math.floor(this.#maxQueued / lanes))
      if (ownJobs >= share || !pushOne((entries, gone) => entries.length - gone, share)) {
        throw this.#overloaded(
          `the job queue is full (${this.#maxQueued} waiting, QUEUE_SIZE) and ${this.#whose(lane, tenant)} ${ownJobs} of them, at least its fair share of ${share} among ${lanes} waiting`,
        )
      }
    }
    const capacity = this.#costCapacity()
    const pushedCost = () => pushed.reduce((sum, entry) => sum + entry.cost, 0)
    if (ownJobs > 0 && this.#waiting.cost - pushedCost() + cost > capacity) {
      const share = capacity / lanes
      const ownCost = (byLane.get(lane) ?? []).reduce((sum, entry) => sum + entry.cost, 0)
      const costOf = (entries: readonly Entry[], gone: number) =>
        entries.slice(0, entries.length - gone).reduce((sum, entry) => sum + entry.cost, 0)
      const refuse = () =>
        this.#overloaded(
          `the queued work is at its bound (REQUEST_TIMEOUT_MS of every worker, about ${Math.round(this.estimateMs(capacity) / 1000)} s) and ${this.#whose(lane, tenant)} about ${Math.ceil(this.estimateMs(ownCost))} ms of it, its fair share among ${lanes} waiting`,
        )
      if (ownCost + cost > share) throw refuse()
      while (this.#waiting.cost - pushedCost() + cost > capacity) {
        if (!pushOne(costOf, share)) throw refuse()
      }
    }
    return pushed
  }

  /** Who holds a lane's waiting jobs, for a refusal's message. */
  #whose(lane: string, tenant: string): string {
    return lane === tenant ? 'this tenant holds' : "this client address's sessions hold"
  }

  /** Queues `job` for `tenant`; resolves with the worker's reply. */
  submit(tenant: string, job: WorkerJob, options: SubmitOptions): Promise<Scheduled> {
    if (options.signal?.aborted) return Promise.reject(new HeError('CANCELLED', 'the client went away'))
    const cost = Math.max(0, options.cost ?? 1)
    const lane = options.lane ?? tenant
    let pushOut: Entry[]
    try {
      this.#refuseUnstartable(cost, options.timeoutMs)
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
      const entry: Entry = {
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
   * recycled to make room (`#makeRoom`) and the jobs wait for it.
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
        (job, worker) => this.#fits(heads[job] as Entry, worker),
      )
      if (!choice) {
        this.#makeRoom(idle)
        return
      }
      const entry = heads[choice.job] as Entry
      for (let i = 0; i < choice.job; i++) (heads[i] as Entry).bypassed++
      this.#waiting.take(entry)
      this.#forget(entry)
      this.#lastWorker = choice.worker
      this.#fresh.delete(choice.worker)
      this.#start(entry, choice.worker)
    }
  }

  #start(entry: Entry, worker?: string): void {
    entry.cleanup()
    try {
      // A job that cannot finish before its request's deadline is answered 504 now, not
      // started to be killed with its worker when the deadline passes.
      this.#refuseUnstartable(entry.cost, entry.deadlineAt - performance.now())
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
          if (reply.result.type !== 'failed') {
            this.#doneCost = 0.8 * this.#doneCost + entry.cost
            this.#doneMs = 0.8 * this.#doneMs + Math.max(0.01, elapsed)
          }
          this.#placement.learn(reply)
          this.#learnHeap(reply)
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

  /**
   * Throws TIMEOUT when a job of `cost` could not finish in `leftMs` at the measured
   * throughput: its request is answered at once and no worker starts what its deadline
   * would stop.
   */
  #refuseUnstartable(cost: number, leftMs: number): void {
    const estimate = this.estimateMs(cost)
    // A cost that is not a number is the server's bug, not a reason to refuse the request.
    if (leftMs >= estimate || !Number.isFinite(estimate)) return
    const left = Math.max(0, Math.floor(leftMs))
    throw new HeError(
      'TIMEOUT',
      `the request has ${left} ms left of its deadline (REQUEST_TIMEOUT_MS) and its job takes about ${Math.ceil(estimate)} ms: not started; send the body faster or the request again`,
      { details: { leftMs: left, estimatedMs: Math.ceil(estimate), setting: 'REQUEST_TIMEOUT_MS' } },
    )
  }

  /** A job left the queue (started, dropped or pushed out): its tenant holds one fewer. */
  #forget(entry: Entry): void {
    const held = (this.#tenantJobs.get(entry.tenant) ?? 1) - 1
    if (held > 0) this.#tenantJobs.set(entry.tenant, held)
    else this.#tenantJobs.delete(entry.tenant)
  }

  #dropWaiting(entry: Entry, error: HeError): void {
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
