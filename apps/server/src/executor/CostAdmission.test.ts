import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { CostAdmission } from './CostAdmission.ts'

const limits = {
  MAX_PROGRAM_COST: 1000,
  MAX_INLINE_COST: 100,
  TENANT_COST_BUDGET: 3000,
  TENANT_COST_WINDOW_MS: 60_000,
}

function refusal(fn: () => void): HeError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  throw new Error('expected a refusal')
}

describe('CostAdmission', () => {
  it('refuses a program above MAX_PROGRAM_COST and any job above MAX_INLINE_COST on inline, naming cost and limit', () => {
    const admission = new CostAdmission(limits)
    admission.check({ units: 1000, what: 'program' }, 'pool')
    const big = refusal(() => admission.check({ units: 1234.5, what: 'program' }, 'pool'))
    expect(big.code).toBe('LIMIT_EXCEEDED')
    expect(big.message).toContain('costs about 1,235 cost units')
    expect(big.message).toContain('limit is 1,000 (MAX_PROGRAM_COST')
    expect(big.details).toMatchObject({ cost: 1235, limit: 1000 })
    // Searches are bounded by their query count, not MAX_PROGRAM_COST.
    admission.check({ units: 5000, what: 'search' }, 'pool')
    const inline = refusal(() => admission.check({ units: 150, what: 'search' }, 'inline'))
    expect(inline.code).toBe('LIMIT_EXCEEDED')
    expect(inline.message).toContain('at most 100 (MAX_INLINE_COST)')
    admission.check({ units: 100, what: 'search' }, 'inline')
  })

  it('spends each tenant’s budget and says when enough is back', () => {
    let now = 0
    const admission = new CostAdmission(limits, () => now)
    for (let i = 0; i < 3; i++) admission.charge('a', { units: 1000, what: 'program' })
    const limited = refusal(() => admission.charge('a', { units: 1000, what: 'program' }))
    expect(limited.code).toBe('RATE_LIMITED')
    expect(limited.message).toContain('budget of 3,000 per 60 s (TENANT_COST_BUDGET per TENANT_COST_WINDOW_MS)')
    // 3,000 units per 60 s refill at 50 per second: 1,000 units take 20 s.
    expect(limited.details?.retryAfterSeconds).toBe(20)
    // Another tenant has its own budget.
    admission.charge('b', { units: 3000, what: 'program' })
    now = 20_000
    admission.charge('a', { units: 1000, what: 'program' })
  })

  it('charges a cold context’s build beside the job, but never more than a budget can hold, and not against MAX_PROGRAM_COST', () => {
    const admission = new CostAdmission(limits, () => 0)
    // The per-request limit prices the request itself: a 900-unit program with a 5,000-unit build passes it.
    admission.check({ units: 900, what: 'program', coldUnits: 5000 }, 'pool')
    // 100 + 1,200 of build, twice: 2,600 of 3,000 spent, so a third is refused naming the build.
    admission.charge('a', { units: 100, what: 'program', coldUnits: 1200 })
    admission.charge('a', { units: 100, what: 'program', coldUnits: 1200 })
    const limited = refusal(() => admission.charge('a', { units: 100, what: 'program', coldUnits: 1200 }))
    expect(limited.code).toBe('RATE_LIMITED')
    expect(limited.message).toContain('costs about 1,300 cost units (1,200 of them building the context')
    // A build above the whole budget is charged as the budget: such parameters stay usable once per window.
    admission.charge('b', { units: 100, what: 'program', coldUnits: 50_000 })
    expect(refusal(() => admission.charge('b', { units: 1, what: 'program' })).code).toBe('RATE_LIMITED')
  })
})

describe('CostAdmission per client address (local mode)', () => {
  it('the anonymous sessions of one address share one budget; another address and configured tenants keep their own', () => {
    let now = 0
    const admission = new CostAdmission({ ...limits, ADDRESS_COST_BUDGET: 1000 }, () => now)
    const job = { units: 400, what: 'program' as const }
    admission.charge('anon-a', job, '127.0.0.1')
    admission.charge('anon-b', job, '127.0.0.1')
    // A third session of the same address: its own budget is full, the address's is not.
    const shared = refusal(() => admission.charge('anon-c', job, '127.0.0.1'))
    expect(shared.code).toBe('RATE_LIMITED')
    expect(shared.message).toContain('the sessions of this client address have spent the budget of 1,000')
    expect(shared.details).toMatchObject({ setting: 'ADDRESS_COST_BUDGET', limit: 1000 })
    // Refused by the address: the session's own budget was not spent.
    admission.charge('anon-c', job, '127.0.0.2')
    admission.charge('anon-c', { units: 2600, what: 'program' })
    admission.charge('acme', { units: 3000, what: 'program' })
    // The address's budget refills like a tenant's.
    now = 60_000
    admission.charge('anon-d', job, '127.0.0.1')
  })
})
