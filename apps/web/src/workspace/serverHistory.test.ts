import { describe, expect, it } from 'vitest'
import { nextRunId } from './serverHistory.ts'

describe('nextRunId', () => {
  it('counts pipeline runs and searches with one counter that continues after a restored history', () => {
    expect(nextRunId({ runs: [], searches: [] })).toBe(1)
    const runs = [{ id: 3 }, { id: 1 }] as never
    const searches = [{ id: 4 }, { id: 2 }] as never
    expect(nextRunId({ runs, searches })).toBe(5)
  })
})
