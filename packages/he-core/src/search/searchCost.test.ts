import { describe, expect, it } from 'vitest'
import { COST_UNIT_MS } from '../program/costUnit.ts'
import { searchCost } from './searchCost.ts'

describe('searchCost', () => {
  it("prices a search job in the program cost model's units: queries × the per-query estimate", () => {
    expect(searchCost({ estimatedServerMs: 9 }, 3)).toBe(27 / COST_UNIT_MS)
    expect(searchCost({ estimatedServerMs: 9 }, 0)).toBe(0)
  })
})
