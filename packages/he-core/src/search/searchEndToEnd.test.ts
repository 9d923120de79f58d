import { describe, expect, it } from 'vitest'
import { resolveSearchLink, transferMs } from './searchEndToEnd.ts'
import { searchFixture } from './searchTestKit.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

describe('the end-to-end model', () => {
  it('prices bytes over a link: 28 KB up at 20 Mbit/s is ≈ 11 ms', () => {
    expect(transferMs(28_160, 20)).toBeCloseTo(11.264, 3)
    expect(resolveSearchLink()).toEqual({ name: 'broadband', upMbps: 20, downMbps: 100, rttMs: 20 })
    expect(resolveSearchLink({ upMbps: 1, downMbps: 2, rttMs: 3 }).name).toBe('custom')
  })

  for (const encoding of ['packed', 'zstd', 'none'] as const) {
    it(`estimates the real query and response bytes (${encoding}) within 3 %`, async () => {
      using fixture = await searchFixture({
        rows: 5000,
        dimension: 10,
        babySteps: 'server',
        babyStep: 4,
        compression: encoding,
      })
      const query = fixture.client.encryptQuery(syntheticSearchQuery(10, 1))
      const { response } = fixture.index.evaluate(query, fixture.keys)
      const estimate = fixture.config.estimate
      expect(Math.abs((estimate?.queryBytes ?? 0) / query.byteLength - 1)).toBeLessThan(0.03)
      expect(Math.abs((estimate?.responseBytes ?? 0) / response.byteLength - 1)).toBeLessThan(0.03)
      const keys = fixture.client.evaluationKeys()
      expect(Math.abs((estimate?.keyBytes ?? 0) / (keys?.byteLength ?? 1) - 1)).toBeLessThan(0.03)
    })
  }
})
