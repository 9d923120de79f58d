import { COST_UNIT_MS, HeError } from '@sealbox/he-core'
import { describe, expect, it, vi } from 'vitest'
import type { Executor, ExecutorStatus } from './Executor.ts'
import { FairScheduler } from './FairScheduler.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'

/*
 * The scheduler's order, checked against an executor whose jobs finish when the test
 * says so (Executor is an interface: this is a whole executor, not a mock of one).
 * Jobs are told apart by identity; the order they start in is the schedule.
 */
class SteppedExecutor implements Executor {
  readonly mode = 'pool' as const
  readonly started: string[] = []
  /** The deadline signal of each job started, in order. */
  readonly deadlines: AbortSignal[] = []
  readonly #running: Array<() => void> = []
  readonly #names: Map<WorkerJob, string>
  readonly #slots: number

  constructor(names: Map<WorkerJob, string>, slots = 1) {
    this.#names = names
    this.#slots = slots
  }

  start(): Promise<WarmInfo> {
    throw new Error('not used')
  }

  ready(): boolean {
    return true
  }

  freeSlots(): number {
    return this.#slots - this.#running.length
  }

  idleWorkers(): string[] {
    return Array.from({ length: this.freeSlots() }, (_, i) => `thread-${i + 1}`)
  }

  run(job: WorkerJob, deadline: AbortSignal): Promise<WorkerReply> {
    this.started.push(this.#names.get(job) ?? '?')
    this.deadlines.push(deadline)
    return new Promise((resolve) => {
      this.#running.push(() =>
        resolve({
          result: { type: 'faultSurvived' },
          timings: {},
          keyCache: 'none',
          worker: {
            workerId: 'thread-1',
            threadId: 1,
            pid: process.pid,
            jobs: 1,
            sealExceptions: 0,
            cacheBytes: 0,
            cacheEntries: 0,
            cacheHits: 0,
            cacheMisses: 0,
            cacheEvictions: 0,
          },
        }),
      )
    })
  }

  /** Finishes the oldest running job and lets the scheduler react. */
  async finishOne(): Promise<void> {
    this.#running.shift()?.()
    await new Promise((resolve) => setImmediate(resolve))
  }

  get busy(): number {
    return this.#running.length
  }

  status(): ExecutorStatus {
    return { mode: 'pool', size: this.#slots, warm: this.#slots, running: this.#running.length, replacements: 0 }
  }

  async close(): Promise<void> {}
}

function rig(options: { slots?: number; maxQueued?: number } = {}) {
  const names = new Map<WorkerJob, string>()
  const executor = new SteppedExecutor(names, options.slots)
  const scheduler = new FairScheduler({
    executor,
    maxQueued: options.maxQueued ?? 1000,
    maxQueuedPerTenant: 1000,
    quantum: 10,
  })
  const submit = (tenant: string, name: string, cost: number) => {
    const job: WorkerJob = { type: 'fault', fault: 'slow' }
    names.set(job, name)
    return scheduler.submit(tenant, job, { timeoutMs: 60_000, cost })
  }
  const runAll = async () => {
    while (executor.busy > 0) await executor.finishOne()
  }
  return { executor, scheduler, submit, runAll }
}

describe('FairScheduler (deficit round-robin by cost)', () => {
  it('runs another tenant’s small job right after the running one while a tenant floods maximum-cost jobs', async () => {
    const { executor, submit, runAll } = rig()
    const flood = Array.from({ length: 6 }, (_, i) => submit('a', `a${i}`, 10_000))
    const search = submit('b', 'b-search', 9)
    await runAll()
    await Promise.all([...flood, search])
    expect(executor.started.indexOf('b-search')).toBe(1)
    expect(executor.started.filter((name) => name.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5'])
  })

  it('shares the worker in cost, not in jobs: ten 10-unit jobs per 100-unit job', async () => {
    const { executor, submit, runAll } = rig()
    const jobs = [
      ...Array.from({ length: 3 }, (_, i) => submit('big', `big${i}`, 100)),
      ...Array.from({ length: 30 }, (_, i) => submit('small', `small${i}`, 10)),
    ]
    await runAll()
    await Promise.all(jobs)
    const bigAt = executor.started.map((name, i) => (name.startsWith('big') ? i : -1)).filter((i) => i >= 0)
    expect(bigAt).toHaveLength(3)
    // Between two big jobs the small tenant gets as much cost: about ten of its jobs.
    for (let i = 1; i < bigAt.length; i++) {
      const between = (bigAt[i] as number) - (bigAt[i - 1] as number) - 1
      expect(between).toBeGreaterThanOrEqual(9)
      expect(between).toBeLessThanOrEqual(11)
    }
  })

  it('is plain round-robin over tenants when every job costs the same', async () => {
    const { executor, submit, runAll } = rig()
    // The worker is busy while the three tenants queue.
    const blocker = submit('z', 'blocker', 9)
    const jobs = ['a', 'b', 'c'].flatMap((tenant) =>
      Array.from({ length: 3 }, (_, i) => submit(tenant, `${tenant}${i}`, 9)),
    )
    await runAll()
    await Promise.all([blocker, ...jobs])
    expect(executor.started).toEqual(['blocker', 'a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2'])
  })

  it('gives a tenant under its fair share the place of the newest job of the tenant holding the most', async () => {
    const { executor, scheduler, submit, runAll } = rig({ maxQueued: 2 })
    // Jobs the model's prior (COST_UNIT_MS per unit) says take 10 s each.
    const tenSeconds = 10_000 / COST_UNIT_MS
    const run = submit('a', 'run', tenSeconds)
    const q1 = submit('a', 'q1', tenSeconds)
    const q2 = submit('a', 'q2', tenSeconds).catch((error: unknown) => error)
    expect(scheduler.queuedCost).toBe(2 * tenSeconds)
    // The queue is full, all of it tenant a's: b (nothing waiting) takes the place of a's newest job.
    const late = submit('b', 'late', 9)
    const pushed = await q2
    expect(pushed).toBeInstanceOf(HeError)
    expect((pushed as HeError).code).toBe('OVERLOADED')
    // Nothing finished yet: the model's prior → the queued 10-second jobs and most of the running one.
    const pushedRetry = Number((pushed as HeError).details?.retryAfterSeconds)
    expect(pushedRetry).toBeGreaterThanOrEqual(10)
    expect(pushedRetry).toBeLessThanOrEqual(31)
    // a now holds its fair share (1 of 2 places, two tenants waiting): refused, not b.
    const refused = await submit('a', 'q3', 9).catch((error: unknown) => error)
    expect((refused as HeError).code).toBe('OVERLOADED')
    expect((refused as HeError).message).toContain('fair share')
    await runAll()
    await Promise.all([run, q1, late])
    // In cost, b's small job goes before a's big one.
    expect(executor.started).toEqual(['run', 'late', 'q1'])
  })

  it('shares the queue between the anonymous sessions of one address as one lane', async () => {
    const { scheduler, runAll, executor } = rig({ maxQueued: 3 })
    const jobs = Array.from({ length: 4 }, (_, i) => {
      const job: WorkerJob = { type: 'fault', fault: 'slow' }
      return scheduler.submit(i % 2 === 0 ? 's1' : 's2', job, { timeoutMs: 60_000, cost: 9, lane: 'address 10.0.0.1' })
    })
    expect(executor.busy).toBe(1)
    // Full: the address's lane holds 3 waiting; another tenant still gets in, and the address's newest goes.
    const other = scheduler.submit('other', { type: 'fault', fault: 'slow' }, { timeoutMs: 60_000, cost: 9 })
    const outcomes = await Promise.allSettled(jobs.slice(3))
    expect(outcomes[0]?.status).toBe('rejected')
    expect(() => scheduler.assertCapacity('s3', 'address 10.0.0.1', 9)).toThrow(/fair share/)
    await runAll()
    await other
    await Promise.all(jobs.slice(0, 3))
  })

  it('answers TIMEOUT at once, without starting it, a job its time left cannot cover', async () => {
    const { executor, scheduler } = rig()
    const tenSeconds = 10_000 / COST_UNIT_MS
    const job: WorkerJob = { type: 'fault', fault: 'slow' }
    const refused = await scheduler
      .submit('a', job, { timeoutMs: 50, cost: tenSeconds })
      .catch((error: unknown) => error)
    expect((refused as HeError).code).toBe('TIMEOUT')
    expect((refused as HeError).details).toMatchObject({ setting: 'REQUEST_TIMEOUT_MS', leftMs: 50 })
    expect(Number((refused as HeError).details?.estimatedMs)).toBeGreaterThanOrEqual(10_000)
    expect(executor.started).toEqual([])
  })

  it("answers at the request's deadline, and stops the worker only at the job's own", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    try {
      const { executor, scheduler, runAll } = rig()
      const job: WorkerJob = { type: 'fault', fault: 'slow' }
      // The body took nearly the whole request deadline: 50 ms left, the job's own time 1 s.
      const answer = scheduler
        .submit('a', job, { timeoutMs: 50, workTimeoutMs: 1000, cost: 1 })
        .catch((error: unknown) => error)
      const deadline = executor.deadlines[0] as AbortSignal
      expect(executor.started).toHaveLength(1)
      vi.advanceTimersByTime(100)
      // The client is answered at its request's deadline; the worker goes on.
      expect(((await answer) as HeError).code).toBe('TIMEOUT')
      expect(deadline.aborted).toBe(false)
      vi.advanceTimersByTime(1000)
      expect(deadline.aborted).toBe(true)
      await runAll()
    } finally {
      vi.useRealTimers()
    }
  })
})
