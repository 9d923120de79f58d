import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { median, percentile } from './sampleStats.ts'

describe('median and percentile', () => {
  it('take the middle value (the mean of the two middle ones for even lengths), unsorted input too', () => {
    expect(median([5, 1, 3])).toBe(3)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([7])).toBe(7)
    expect(() => median([])).toThrow(HeError)
  })

  it('take the nearest rank of an ascending list, NaN when empty', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(sorted, 0.99)).toBe(99)
    expect(percentile(sorted, 0.5)).toBe(50)
    expect(percentile(sorted, 1)).toBe(100)
    expect(percentile(sorted, 0)).toBe(1)
    expect(percentile([], 0.5)).toBeNaN()
  })
})
