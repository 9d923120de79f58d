import { COST_UNIT_MS, HeError } from '@sealbox/he-core'
import type { ExecutorMode, ServerConfig } from '../config/ServerConfig.ts'
import { TokenBucketLimiter } from '../http/TokenBucketLimiter.ts'

/** What a job is, for the messages of a refusal. */
export type CostedWork = 'program' | 'search' | 'key upload' | 'job'

/** A job's estimated work, as the hub admits it. */
export interface JobCost {
  /** Cost units (he-core's `programCost` / `searchCost` / `keyUploadCost`). */
  units: number
  what: CostedWork
  /** The most memory the job takes at once, when it is estimated (a program's peak heap, a key upload's inflated and loaded keys). */
  peakHeapBytes?: number
  /** What makes up the peak, for the message of a refusal. */
  peakHeapNote?: string
  /**
   * Work a worker may first have to do for the job that is not the job's own (building
   * its parameters' context): charged to the tenant and weighed by the fair queue, but not
   * held against the per-request limits, which price what the request itself asks for.
   */
  coldUnits?: number
}

/** All the units a job is charged and scheduled by: its own and the cold work before it. */
export function chargedUnits(cost: JobCost): number {
  return cost.units + (cost.coldUnits ?? 0)
}

type CostLimits = Pick<
  ServerConfig,
  'MAX_PROGRAM_COST' | 'MAX_INLINE_COST' | 'TENANT_COST_BUDGET' | 'TENANT_COST_WINDOW_MS'
> &
  Partial<Pick<ServerConfig, 'ADDRESS_COST_BUDGET' | 'MAX_JOB_HEAP_BYTES'>>

const MiB = 2 ** 20
const units = (value: number) => Math.ceil(value).toLocaleString('en-US')
const mebibytes = (bytes: number, round: (value: number) => number) => round(bytes / MiB).toLocaleString('en-US')

/**
 * Refuses work up front — before it queues, so before any worker time — by its
 * estimated cost: a program above MAX_PROGRAM_COST (LIMIT_EXCEEDED), a job whose
 * estimated peak memory is above MAX_JOB_HEAP_BYTES (LIMIT_EXCEEDED), a job above
 * MAX_INLINE_COST on the `inline` executor (LIMIT_EXCEEDED: inline blocks the event
 * loop for the whole job), and a tenant past its TENANT_COST_BUDGET per
 * TENANT_COST_WINDOW_MS (RATE_LIMITED with Retry-After). The budget is a token bucket
 * of cost units per tenant that refills evenly over the window; in local mode the
 * anonymous tenants of one client address also share one such bucket
 * (ADDRESS_COST_BUDGET, by default one tenant's).
 */
export class CostAdmission {
  readonly #limits: CostLimits
  readonly #budget: TokenBucketLimiter
  /** Local mode: the anonymous tenants of one client address share one tenant's budget. */
  readonly #addressBudget: TokenBucketLimiter

  constructor(limits: CostLimits, now?: () => number) {
    this.#limits = limits
    const window = limits.TENANT_COST_WINDOW_MS / 1000
    const perAddress = this.#addressLimit
    this.#budget = new TokenBucketLimiter(
      { ratePerSecond: limits.TENANT_COST_BUDGET / window, burst: limits.TENANT_COST_BUDGET, what: 'cost units' },
      now,
    )
    this.#addressBudget = new TokenBucketLimiter(
      { ratePerSecond: perAddress / window, burst: perAddress, what: 'cost units' },
      now,
    )
  }

  get #addressLimit(): number {
    return this.#limits.ADDRESS_COST_BUDGET ?? this.#limits.TENANT_COST_BUDGET
  }

  /** Checks the per-request limits (no budget spent); throws LIMIT_EXCEEDED naming the cost and the limit. */
  check(cost: JobCost, mode: ExecutorMode): void {
    const { MAX_PROGRAM_COST, MAX_INLINE_COST, MAX_JOB_HEAP_BYTES } = this.#limits
    const peak = cost.peakHeapBytes
    if (peak !== undefined && MAX_JOB_HEAP_BYTES !== undefined && peak > MAX_JOB_HEAP_BYTES) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `this ${cost.what} needs about ${mebibytes(peak, Math.ceil)} MiB of memory at its peak${cost.peakHeapNote ? ` (${cost.peakHeapNote})` : ''}; this server's limit is ${mebibytes(MAX_JOB_HEAP_BYTES, Math.floor)} MiB per job (MAX_JOB_HEAP_BYTES)`,
        { details: { peakHeapBytes: peak, limit: MAX_JOB_HEAP_BYTES, setting: 'MAX_JOB_HEAP_BYTES' } },
      )
    }
    if (cost.what === 'program' && cost.units > MAX_PROGRAM_COST) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `this program costs about ${units(cost.units)} cost units; this server's limit is ${units(MAX_PROGRAM_COST)} (MAX_PROGRAM_COST; 1 unit ≈ ${COST_UNIT_MS} ms of a worker): use a smaller n, fewer levels, smaller exponents or fewer steps, or split it into several requests`,
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

  /**
   * Spends `cost` from the tenant's budget and, for an anonymous tenant, from its client
   * address's too — new sessions are cheap, so without it each one would bring a fresh
   * budget. Throws RATE_LIMITED (429 + Retry-After) when either has too little left;
   * then neither is spent.
   */
  charge(tenant: string, cost: JobCost, anonymousAddress?: string): void {
    // A build is charged up to what a budget can hold beside the job, so parameters whose
    // context costs more than a whole budget are still usable, once per window.
    const budget =
      anonymousAddress === undefined
        ? this.#limits.TENANT_COST_BUDGET
        : Math.min(this.#limits.TENANT_COST_BUDGET, this.#addressLimit)
    const room = Math.max(0, budget - cost.units)
    const charged = cost.units + Math.min(cost.coldUnits ?? 0, room)
    if (anonymousAddress !== undefined && !this.#addressBudget.has(anonymousAddress, charged)) {
      this.#refuse(cost, 'the sessions of this client address have', 'ADDRESS_COST_BUDGET', this.#addressLimit, () =>
        this.#addressBudget.take(anonymousAddress, charged),
      )
    }
    this.#refuse(cost, 'this tenant has', 'TENANT_COST_BUDGET', this.#limits.TENANT_COST_BUDGET, () =>
      this.#budget.take(tenant, charged),
    )
    if (anonymousAddress !== undefined) this.#addressBudget.charge(anonymousAddress, charged)
  }

  /** Runs `take`; its RATE_LIMITED becomes one that names the budget and who spent it. */
  #refuse(cost: JobCost, who: string, setting: string, limit: number, take: () => void): void {
    const { TENANT_COST_WINDOW_MS } = this.#limits
    try {
      take()
    } catch (error) {
      if (!(error instanceof HeError) || error.code !== 'RATE_LIMITED') throw error
      const retryAfterSeconds = Number(error.details?.retryAfterSeconds ?? 1)
      throw new HeError(
        'RATE_LIMITED',
        `this ${cost.what} costs about ${units(chargedUnits(cost))} cost units${cost.coldUnits ? ` (${units(cost.coldUnits)} of them building the context of parameters no worker has used lately)` : ''} and ${who} spent the budget of ${units(limit)} per ${TENANT_COST_WINDOW_MS / 1000} s (${setting} per TENANT_COST_WINDOW_MS); enough is back in ${retryAfterSeconds} s`,
        {
          details: {
            retryAfterSeconds,
            cost: Math.ceil(chargedUnits(cost)),
            limit,
            windowMs: TENANT_COST_WINDOW_MS,
            setting,
          },
          cause: error,
        },
      )
    }
  }
}
