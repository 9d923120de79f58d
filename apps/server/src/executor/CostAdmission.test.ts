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
})
