import { TIMING_PHASES } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { parsePrometheus, sumMetric } from '../load/scrapeMetrics.ts'
import { KEY_PHASES, phaseSplit, summarizeLoad, tierOf } from './summarizeLoad.ts'

describe('summarizeLoad', () => {
  it('reads the key tier off the Server-Timing phases', () => {
    expect(tierOf({ queue: 1, compute: 20 })).toBe('worker')
    expect(tierOf({ keydeserialize: 4, compute: 20 })).toBe('bytes')
    expect(tierOf({ keyload: 2, keydeserialize: 4 })).toBe('store')
    // Query deserialization is not key work: without a store read the keys were held.
    expect(tierOf({ deserialize: 4, compute: 20 })).toBe('worker')
  })

  it("reports the contract's worker-side phases in Server-Timing order", () => {
    const order = KEY_PHASES.map((phase) => TIMING_PHASES.indexOf(phase))
    expect(order.every((index, i) => index >= 0 && (i === 0 || index > (order[i - 1] ?? -1)))).toBe(true)
    expect(KEY_PHASES).toEqual(expect.arrayContaining(['queue', 'keyload', 'compute', 'transfer']))
    for (const notSplit of ['auth', 'decode', 'encode', 'store', 'cpu'] as const)
      expect(KEY_PHASES).not.toContain(notSplit)
  })

  it('splits a request into phases, transfer being client time the server did not account for', () => {
    const split = phaseSplit({
      status: 200,
      latencyMs: 40,
      startMs: 0,
      phases: { queue: 5, keyload: 2, keydeserialize: 3, deserialize: 1, compute: 25, serialize: 1, total: 39 },
    })
    expect(split).toEqual({
      queue: 5,
      keyload: 2,
      keydeserialize: 3,
      deserialize: 1,
      compute: 25,
      serialize: 1,
      transfer: 1,
    })
  })

  it('counts throughput over successful requests, errors by code, and tier shares', () => {
    const summary = summarizeLoad({
      wallMs: 2000,
      stoppedBy: 'requests',
      samples: [
        { status: 200, latencyMs: 10, startMs: 0, phases: { compute: 9, total: 9 } },
        { status: 200, latencyMs: 30, startMs: 1, phases: { keyload: 5, keydeserialize: 5, total: 29 } },
        { status: 503, latencyMs: 1, startMs: 2, phases: {}, code: 'OVERLOADED' },
      ],
    })
    expect(summary.throughput).toBe(1)
    expect(summary.errors).toBe(1)
    expect(summary.errorCodes).toEqual({ OVERLOADED: 1 })
    expect(summary.tiers).toEqual({ worker: 0.5, bytes: 0, store: 0.5 })
    expect(summary.latency.p50).toBe(10)
  })

  it('parses Prometheus text', () => {
    const samples = parsePrometheus(
      '# HELP x y\nsealbox_key_cache_lookups_total{executor="pool",tier="worker",result="hit"} 7\nsealbox_key_cache_lookups_total{executor="pool",tier="worker",result="miss"} 3\nplain 1.5\n',
    )
    expect(sumMetric(samples, 'sealbox_key_cache_lookups_total')).toBe(10)
    expect(sumMetric(samples, 'sealbox_key_cache_lookups_total', { result: 'hit' })).toBe(7)
    expect(sumMetric(samples, 'plain')).toBe(1.5)
  })
})
