import { resolveSearchConfig } from '@sealbox/he-core/search'
import { describe, expect, it } from 'vitest'
import { measureThreaded } from './threadedSearch.ts'

describe('a search split over worker threads', () => {
  it("serves the default config (it rotates on the server) with the client's own keys, exactly", async () => {
    const database = { rows: 9000, dimension: 6, seed: 3 }
    expect(resolveSearchConfig({ rows: 9000, dimension: 6 }).galoisSteps.length).toBeGreaterThan(0)
    const measured = await measureThreaded({ rows: 9000, dimension: 6 }, database, 2, { warmup: 0, samples: 2 })
    expect(measured.split).toHaveLength(2)
    expect(measured.exact).toBe(true)
    expect(measured.latency.samples).toBe(2)
  })
})
