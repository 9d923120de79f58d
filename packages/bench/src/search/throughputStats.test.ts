import { describe, expect, it } from 'vitest'
import type { RequestSample } from '../load/serverBenchProtocol.ts'
import { summarizeDirectThroughput, summarizeThroughputCell } from './throughputStats.ts'

const sample = (latencyMs: number, status = 200, phases: Record<string, number> = {}): RequestSample => ({
  latencyMs,
  status,
  phases,
  startMs: 0,
})

describe('throughput statistics', () => {
  it('counts answered queries per second, per worker core and per CPU core', () => {
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => sample(10 + i, 200, { compute: 2 + i, total: 5 + i, cpu: 4 })),
      sample(5000, 503),
      sample(60_000, 0),
    ]
    const cell = summarizeThroughputCell({ samples, wallMs: 500, serverCpuMs: 80, workers: 2, cores: 2 })
    expect(cell).toMatchObject({ requests: 10, errors: 2, qps: 20, qpsPerWorkerCore: 10, workerCpuMs: 4 })
    // Nearest rank over the answered requests only: the failures' latencies do not count.
    expect(cell.latencyP50).toBe(14)
    expect(cell.latencyP99).toBe(19)
    expect(cell.computeP50).toBe(6)
    expect(cell.totalP50).toBe(9)
    expect(cell.serverCpuMs).toBe(8)
    expect(cell.qpsPerCpuCore).toBe(125)
  })

  it('divides by the cores the workers can use, and leaves CPU per query out when /metrics was not read', () => {
    const cell = summarizeThroughputCell({
      samples: [sample(10), sample(12)],
      wallMs: 1000,
      serverCpuMs: undefined,
      workers: 4,
      cores: 2,
    })
    expect(cell.qpsPerWorkerCore).toBe(1)
    expect(cell.serverCpuMs).toBeNull()
    expect(cell.qpsPerCpuCore).toBeNull()
    expect(cell.workerCpuMs).toBeNaN()
  })

  it('gives the direct figure from wall and CPU times', () => {
    const direct = summarizeDirectThroughput([20, 10, 40], [8, 10, 12])
    expect(direct.total).toEqual({ min: 10, median: 20, samples: 3 })
    expect(direct).toMatchObject({ cpuMs: 10, qps: 50, qpsPerCore: 100 })
    expect(summarizeDirectThroughput([], [])).toMatchObject({ qps: 0, qpsPerCore: 0 })
    // With the whole process's threads read from /proc, a core's worth is counted on all of them.
    const all = summarizeDirectThroughput([20, 10, 40], [8, 10, 12], {
      workers: 0,
      eventLoop: 45,
      v8Helpers: 15,
      other: 0,
    })
    expect(all).toMatchObject({ cpuMs: 10, processCpuMs: 20, qpsPerCore: 50 })
    expect(all.threadShares).toEqual({ workers: 0, eventLoop: 0.75, v8Helpers: 0.25, other: 0 })
  })
})
