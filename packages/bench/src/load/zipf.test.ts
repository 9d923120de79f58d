import { describe, expect, it } from 'vitest'
import { ZipfSampler } from './zipf.ts'

describe('ZipfSampler', () => {
  it('follows 1/k^s within sampling error and is reproducible per seed', () => {
    const sampler = new ZipfSampler(100, 1.1, 42)
    const counts = new Array<number>(100).fill(0)
    const draws = 200_000
    for (let i = 0; i < draws; i++) counts[sampler.next()]! += 1
    for (const k of [0, 1, 4, 20, 99]) {
      const expected = sampler.probability(k) * draws
      expect(Math.abs(counts[k]! - expected)).toBeLessThan(5 * Math.sqrt(expected) + 5)
    }
    const a = new ZipfSampler(1000, 0.9, 7)
    const b = new ZipfSampler(1000, 0.9, 7)
    expect(Array.from({ length: 50 }, () => a.next())).toEqual(Array.from({ length: 50 }, () => b.next()))
  })

  it('is uniform at s = 0 and always in range', () => {
    const sampler = new ZipfSampler(10, 0, 1)
    for (let k = 0; k < 10; k++) expect(sampler.probability(k)).toBeCloseTo(0.1, 12)
    for (let i = 0; i < 1000; i++) {
      const k = sampler.next()
      expect(k).toBeGreaterThanOrEqual(0)
      expect(k).toBeLessThan(10)
    }
  })
})
