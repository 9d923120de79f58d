import { describe, expect, it } from 'vitest'
import { parseServerTiming } from './serverTiming.ts'

describe('parseServerTiming', () => {
  it('reads durations by name and sums repeats', () => {
    expect(parseServerTiming('queue;dur=0.40, compute;dur=27.1;desc="bsgs", total;dur=30')).toEqual({
      queue: 0.4,
      compute: 27.1,
      total: 30,
    })
    expect(parseServerTiming('a;dur=1, a;dur=2.5')).toEqual({ a: 3.5 })
  })

  it('tolerates missing durations, junk and empty headers', () => {
    expect(parseServerTiming('cache, bad name;dur=1, x;dur=abc')).toEqual({ cache: 0, x: 0 })
    expect(parseServerTiming(null)).toEqual({})
    expect(parseServerTiming('')).toEqual({})
  })
})
