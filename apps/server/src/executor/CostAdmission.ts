import { HeError } from '@sealbox/he-core'
import type { ExecutorMode, ServerConfig } from '../config/ServerConfig.ts'
import { TokenBucketLimiter } from '../http/TokenBucketLimiter.ts'

/** What a job is, for the messages of a refusal. */
export type CostedWork = 'program' | 'search' | 'job'

/** A job's estimated work, as the hub admits it. */
export interface JobCost {
  /** Cost units (he-core's `programCost` / `searchCost`). */
  units: number
  what: CostedWork
}

type CostLimits = Pick<
  ServerConfig,
  'MAX_PROGRAM_COST' | 'MAX_INLINE_COST' | 'TENANT_COST_BUDGET' | 'TENANT_COST_WINDOW_MS'
>

const units = (value: number) => Math.ceil(value).toLocaleString('en-US')

/**
 * Refuses work up front — before it queues, so before any worker time — by its
 * estimated cost: a program above MAX_PROGRAM_COST (LIMIT_EXCEEDED), a job above
 * MAX_INLINE_COST on the `inline` executor (LIMIT_EXCEEDED: inline blocks the event
 * loop for the whole job), and a tenant past its TENANT_COST_BUDGET per
 * TENANT_COST_WINDOW_MS (RATE_LIMITED with Retry-After). The budget is a token bucket
 * of cost units per tenant that refills evenly over the window.
 */
export class CostAdmission {
  readonly #limits: CostLimits
  readonly #budget: TokenBucketLimiter

  constructor(limits: CostLimits, now?: () => number) {
    this.#limits = limits
    this.#budget = new TokenBucketLimiter(
      {
        ratePerSecond: limits.TENANT_COST_BUDGET / (limits.TENANT_COST_WINDOW_MS / 1000),
        burst: limits.TENANT_COST_BUDGET,
        what: 'cost units',
      },
      now,
    )
  }

  /** Checks the per-request limits (no budget spent); throws LIMIT_EXCEEDED naming the cost and the limit. */
  check(cost: JobCost, mode: ExecutorMode): void {
    const { MAX_PROGRAM_COST, MAX_INLINE_COST } = this.#limits
    if (cost.what === 'program' && cost.units > MAX_PROGRAM_COST) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `this program costs about ${units(cost.units)} cost units; this server's limit is ${units(MAX_PROGRAM_COST)} (MAX_PROGRAM_COST; 1 unit ≈ one n=4096 ciphertext multiply): use a smaller n, fewer levels, smaller exponents or fewer steps, or split it into several requests`,
        { details: { cost: Math.ceil(cost.units), limit: MAX_PROGRAM_COST, setting: 'MAX_PROGRAM_COST' } },
      )
    }
    if (mode === 'inline' && cost.units > MAX_INLINE_COST) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `this ${cost.what} costs about ${units(cost.units)} cost units; the inline executor takes at most ${units(MAX_INLINE_COST)} (MAX_INLINE_COST), because it blocks the whole server while it runs: send it without x-sealbox-executor: inline`,
        { details: { cost: Math.ceil(cost.units), limit: MAX_INLINE_COST, setting: 'MAX_INLINE_COST' } },
      )
    }
  }

  /** Spends `cost` from the tenant's budget; throws RATE_LIMITED (429 + Retry-After) when too little is left. */
  charge(tenant: string, cost: JobCost): void {
    const { TENANT_COST_BUDGET, TENANT_COST_WINDOW_MS } = this.#limits
    try {
      this.#budget.take(tenant, cost.units)
    } catch (error) {
      if (!(error instanceof HeError) || error.code !== 'RATE_LIMITED') throw error
      const retryAfterSeconds = Number(error.details?.retryAfterSeconds ?? 1)
      throw new HeError(
        'RATE_LIMITED',
        `this ${cost.what} costs about ${units(cost.units)} cost units and this tenant has spent its budget of ${units(TENANT_COST_BUDGET)} per ${TENANT_COST_WINDOW_MS / 1000} s (TENANT_COST_BUDGET per TENANT_COST_WINDOW_MS); enough is back in ${retryAfterSeconds} s`,
        {
          details: {
            retryAfterSeconds,
            cost: Math.ceil(cost.units),
            limit: TENANT_COST_BUDGET,
            windowMs: TENANT_COST_WINDOW_MS,
            setting: 'TENANT_COST_BUDGET',
          },
          cause: error,
        },
      )
    }
  }
}
