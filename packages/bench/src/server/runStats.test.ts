import { parseServerTiming } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { percentile } from '../core/stats.ts'
import { parseLoopDelay } from '../load/parseLoopDelay.ts'
import type { LoadResult, ProbeSample } from '../load/serverBenchProtocol.ts'
import { LOOP_RESOLUTION_MS, medianStats, probesIn, serverRunStats } from './runStats.ts'

const probe = (kind: ProbeSample['kind'], sentAtEpochMs: number, latencyMs: number, ok = true): ProbeSample => ({
  kind,
  sentAtEpochMs,
  lateMs: 0,
  latencyMs,
  ok,
})

describe('run statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(percentile(values, 0.5)).toBe(50)
    expect(percentile(values, 0.99)).toBe(99)
    expect(percentile([7], 0.99)).toBe(7)
    expect(percentile([], 0.5)).toBeNaN()
  })

  it('summarises requests, the probes inside the window and the loop reading', () => {
    const load: LoadResult = {
      samples: [10, 20, 30, 40].map((latencyMs, i) => ({
        latencyMs,
        status: i === 3 ? 503 : 200,
        phases: { queue: 1, deserialize: 2, compute: latencyMs / 2, serialize: 1 },
        startMs: i,
      })),
      window: { startEpochMs: 1000, endEpochMs: 2000 },
      wallMs: 500,
      stoppedBy: 'requests',
      firstResponses: {},
      loopDelay: { p50: 10.1, p90: 11, p99: 25, max: 40, mean: 12 },
    }
    const probes = probesIn(
      [probe('fresh', 900, 99), probe('fresh', 1000, 2), probe('keepAlive', 1500, 3), probe('fresh', 2001, 99)],
      load.window,
    )
    expect(probes).toHaveLength(2)
    const stats = serverRunStats(load, probes)
    expect(stats.requests).toBe(4)
    expect(stats.errors).toBe(1)
    expect(stats.throughput).toBe(6)
    expect(stats.latencyP50).toBe(20)
    expect(stats.computeP50).toBe(10)
    expect(stats.executorP50).toBe(13)
    expect(stats.healthzFreshP99).toBe(2)
    expect(stats.healthzKeepAliveP50).toBe(3)
    expect(stats.loopDelayP99).toBe(25 - LOOP_RESOLUTION_MS)
    expect(stats.loopDelayP50).toBeCloseTo(0.1)
    expect(medianStats([stats, { ...stats, latencyP50: 40 }, { ...stats, latencyP50: null }]).latencyP50).toBe(30)
  })

  it('reads the event-loop gauges of /metrics and Server-Timing headers', () => {
    const metrics = [
      '# HELP sealbox_nodejs_eventloop_lag_p50_seconds x',
      'sealbox_nodejs_eventloop_lag_p50_seconds 0.0101',
      'sealbox_nodejs_eventloop_lag_p90_seconds 0.0105',
      'sealbox_nodejs_eventloop_lag_p99_seconds 0.25',
      'sealbox_nodejs_eventloop_lag_max_seconds 0.5',
      'sealbox_nodejs_eventloop_lag_mean_seconds 0.02',
    ].join('\n')
    expect(parseLoopDelay(metrics)?.p99).toBeCloseTo(250)
    expect(parseLoopDelay('up 1')).toBeUndefined()
    expect(parseServerTiming('queue;dur=0.40, compute;dur=27.1;desc="x", total;dur=30.2, store')).toEqual({
      queue: 0.4,
      compute: 27.1,
      total: 30.2,
      store: 0,
    })
  })
})
