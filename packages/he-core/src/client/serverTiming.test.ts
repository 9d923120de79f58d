import { describe, expect, it } from 'vitest'
import { parseServerTiming } from './serverTiming.ts'

describe('parseServerTiming', () => {
  it('reads durations by name and sums repeats', () => {
    expect(parseServerTiming('queue;dur=0.40, compute;dur=27.1;desc="bsgs", total;dur=30')).toEqual({
      queue: 0.4,
      compute: 27.1,
      total: 30,
    })
    expect(parseServerTiming('decode;dur=1, decode;dur=2.5')).toEqual({ decode: 3.5 })
  })

  it('tolerates missing durations, junk and empty headers, and skips names the contract does not have', () => {
    expect(parseServerTiming('store, bad name;dur=1, cpu;dur=abc')).toEqual({ store: 0, cpu: 0 })
    expect(parseServerTiming('cdn-cache;dur=3, compute;dur=2')).toEqual({ compute: 2 })
    expect(parseServerTiming(null)).toEqual({})
    expect(parseServerTiming('')).toEqual({})
  })
})
