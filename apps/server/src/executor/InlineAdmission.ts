import { createHash } from 'node:crypto'
import { COST_UNIT_MS, HeError } from '@sealbox/he-core'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { TokenBucketLimiter } from '../http/TokenBucketLimiter.ts'
import type { WorkerJob, WorkerReply } from './jobMessages.ts'

type InlineLimits = Pick<ServerConfig, 'INLINE_MAX_JOB_MS' | 'INLINE_BUDGET_MS' | 'INLINE_BUDGET_WINDOW_MS'>

/** Measurements kept per job shape, and shapes remembered (least recently seen forgotten first). */
const SAMPLES_PER_SHAPE = 4
const MAX_SHAPES = 512
/** Recent jobs of any shape: an unseen shape is predicted at the worst of them. */
const RECENT_JOBS = 32
/**
 * Milliseconds per cost unit assumed for a shape never measured: the model is known to
 * underprice some programs up to ~10× (grown ciphertexts, rotations SEAL decomposes), and
 * a first inline run cannot be stopped once it starts. Run it once on the pool and its
 * measured time admits it here.
 */
const UNSEEN_MS_PER_UNIT = 10 * COST_UNIT_MS

/**
 * Milliseconds per cost unit of the work the inline executor does before a job it is cold
 * for (`coldWorkCost`, priced by measurement): twice the model's rate when no recent job
 * says the machine is slower.
 */
const COLD_MS_PER_UNIT = 2 * COST_UNIT_MS

/** One admitted inline job: checked again just before it runs, settled with what it took. */
export interface InlineTicket {
  /** Just before the job runs (it may have waited behind others): refuses it if it is now known to be too long or its address is out of budget. */
  beforeRun(): void
  /** After it ran: learns its measured ms per cost unit and charges its address what it took beyond what was charged. */
  afterRun(reply: WorkerReply): void
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`

/**
 * Admission to the `inline` executor by measured time, not by the cost model alone: the
 * model can underprice a job (grown ciphertexts, rotations SEAL decomposes), and inline
 * work blocks the event loop for as long as it really takes. Each finished job, on any
 * executor, teaches its shape's milliseconds per cost unit (the worst of its last few
 * runs); a job is predicted at its shape's rate, or — a shape not seen yet — at the
 * worst rate of any recent job and never below UNSEEN_MS_PER_UNIT. What the inline
 * executor has yet to build or load for the job (its parameters' context, its key set:
 * `coldUnits`) is added at the worst rate of recent jobs, since the loop waits for it
 * just the same. A
 * job predicted past INLINE_MAX_JOB_MS is refused (LIMIT_EXCEEDED), and each client address may block the
 * loop for at most INLINE_BUDGET_MS per INLINE_BUDGET_WINDOW_MS (RATE_LIMITED): the
 * prediction is charged at admission and again, with what was learned meanwhile, just
 * before the job runs; what it took beyond that is charged after it ran.
 */
export class InlineAdmission {
  readonly #limits: InlineLimits
  readonly #budget: TokenBucketLimiter
  readonly #shapes = new Map<string, number[]>()
  readonly #recent: number[] = []

  constructor(limits: InlineLimits, now?: () => number) {
    this.#limits = limits
    this.#budget = new TokenBucketLimiter(
      {
        ratePerSecond: limits.INLINE_BUDGET_MS / (limits.INLINE_BUDGET_WINDOW_MS / 1000),
        burst: limits.INLINE_BUDGET_MS,
        what: 'inline milliseconds',
      },
      now,
    )
  }

  /**
   * Predicted event-loop milliseconds of a job of `units` cost units and this shape, with
   * `coldUnits` of work the executor must first do for it (a context, a key set). That
   * work is not the program's, and it was measured: it runs at the rate recent jobs ran at
   * (the machine's speed now), never below COLD_MS_PER_UNIT.
   */
  predictMs(units: number, shape: string, coldUnits = 0): number {
    const known = this.#shapes.get(shape)
    const rate = known ? Math.max(...known) : Math.max(UNSEEN_MS_PER_UNIT, ...this.#recent)
    return Math.max(units, 0.1) * rate + coldUnits * Math.max(COLD_MS_PER_UNIT, ...this.#recent)
  }

  /** Learns from a job that ran on any executor (a worker's time predicts the loop's). */
  observe(job: WorkerJob, units: number, reply: WorkerReply): void {
    // A failed job stopped early (bad input, refused key): it says nothing of the shape's speed.
    if (reply.runMs === undefined || reply.result.type === 'failed') return
    this.#learn(shapeOf(job), reply.runMs / Math.max(units, 0.1))
  }

  /**
   * Admits a job of `units` from `address` (LIMIT_EXCEEDED above INLINE_MAX_JOB_MS,
   * RATE_LIMITED past the address's budget); the ticket re-checks and settles it.
   * `coldUnits` says what the executor would first have to build or load for the job,
   * asked at admission and again just before it runs (another job may have done it since).
   */
  admit(address: string, job: WorkerJob, units: number, coldUnits: () => number = () => 0): InlineTicket {
    const shape = shapeOf(job)
    let cold = coldUnits()
    let charged = this.#check(address, units, cold, shape, 0)
    return {
      beforeRun: () => {
        cold = coldUnits()
        charged += this.#check(address, units, cold, shape, charged)
      },
      afterRun: (reply) => {
        // Learned per unit of everything the run did, so a cold first run does not make warm ones look slow.
        this.observe(job, units + cold, reply)
        const took = reply.runMs ?? 0
        if (took > charged) this.#budget.charge(address, took - charged)
      },
    }
  }

  /** Checks the prediction and takes what it adds to `charged` from the address's budget; returns that. */
  #check(address: string, units: number, cold: number, shape: string, charged: number): number {
    const { INLINE_MAX_JOB_MS, INLINE_BUDGET_MS, INLINE_BUDGET_WINDOW_MS } = this.#limits
    const predicted = this.predictMs(units, shape, cold)
    if (predicted > INLINE_MAX_JOB_MS) {
      const first =
        cold > 0
          ? ", building its parameters' context or loading its key set first, which the inline executor has not done yet,"
          : ''
      throw new HeError(
        'LIMIT_EXCEEDED',
        `jobs like this one${first} take about ${ms(predicted)} on the inline executor, which blocks the whole server while it runs; it takes jobs of at most ${ms(INLINE_MAX_JOB_MS)} (INLINE_MAX_JOB_MS): send it without x-sealbox-executor: inline`,
        {
          details: {
            predictedMs: Math.round(predicted),
            ...(cold > 0 ? { coldUnits: Math.round(cold) } : {}),
            limit: INLINE_MAX_JOB_MS,
            setting: 'INLINE_MAX_JOB_MS',
          },
        },
      )
    }
    const more = Math.max(0, predicted - charged)
    try {
      this.#budget.take(address, more)
    } catch (error) {
      if (!(error instanceof HeError) || error.code !== 'RATE_LIMITED') throw error
      const retryAfterSeconds = Number(error.details?.retryAfterSeconds ?? 1)
      throw new HeError(
        'RATE_LIMITED',
        `this client address has used its ${ms(INLINE_BUDGET_MS)} of the inline executor per ${INLINE_BUDGET_WINDOW_MS / 1000} s (INLINE_BUDGET_MS per INLINE_BUDGET_WINDOW_MS); enough is back in ${retryAfterSeconds} s, or send it without x-sealbox-executor: inline`,
        {
          details: { retryAfterSeconds, limit: INLINE_BUDGET_MS, setting: 'INLINE_BUDGET_MS' },
          cause: error,
        },
      )
    }
    return more
  }

  #learn(shape: string, rate: number): void {
    const samples = this.#shapes.get(shape) ?? []
    samples.push(rate)
    if (samples.length > SAMPLES_PER_SHAPE) samples.shift()
    this.#shapes.delete(shape)
    this.#shapes.set(shape, samples)
    if (this.#shapes.size > MAX_SHAPES) {
      const oldest = this.#shapes.keys().next().value
      if (oldest !== undefined) this.#shapes.delete(oldest)
    }
    this.#recent.push(rate)
    if (this.#recent.length > RECENT_JOBS) this.#recent.shift()
  }
}

/** What makes two jobs take the same time: a program and its parameters, or a search of so many queries. */
function shapeOf(job: WorkerJob): string {
  switch (job.type) {
    case 'evaluate':
      return `evaluate:${createHash('sha256')
        .update(JSON.stringify([job.params, job.program]))
        .digest('base64url')}`
    case 'search':
      return `search:${job.queries.length}`
    case 'inspectKeys':
      return 'inspectKeys'
    case 'fault':
      return `fault:${job.fault}:${job.ms ?? ''}`
    default: {
      const never: never = job
      throw new HeError('INTERNAL', `unknown job ${JSON.stringify(never)}`)
    }
  }
}
