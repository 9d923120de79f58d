import { describe, expect, it } from 'vitest'
import { COST_UNIT_MS } from '../program/costUnit.ts'
import { SEARCH_CPU_PER_ESTIMATED_MS, searchCost } from './searchCost.ts'

describe('searchCost', () => {
  it("prices a search job in the program cost model's units: queries × the per-query estimate", () => {
    expect(searchCost({ estimatedServerMs: 9 }, 3)).toBeCloseTo((27 * SEARCH_CPU_PER_ESTIMATED_MS) / COST_UNIT_MS, 9)
    expect(searchCost({ estimatedServerMs: 9 }, 0)).toBe(0)
  })
})
