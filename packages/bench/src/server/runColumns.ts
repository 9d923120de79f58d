import type { DirectTiming } from '../load/PreparedWorkload.ts'
import type { ProbeSample, RequestSample } from '../load/serverBenchProtocol.ts'
import { executorMs } from './runStats.ts'
import type { RunProbes, RunSamples } from './ServerBenchReport.ts'

/** Rounds to µs: the JSON keeps every sample without 17-digit noise. */
export const roundUs = (ms: number) => Math.round(ms * 1000) / 1000

/** A load run's requests, column-wise. */
export function requestColumns(samples: readonly RequestSample[]): RunSamples {
  return {
    startMs: samples.map((s) => roundUs(s.startMs)),
    latencyMs: samples.map((s) => roundUs(s.latencyMs)),
    status: samples.map((s) => s.status),
    computeMs: samples.map((s) => roundUs(s.phases.compute ?? 0)),
    executorMs: samples.map((s) => roundUs(executorMs(s.phases))),
    queueMs: samples.map((s) => roundUs(s.phases.queue ?? 0)),
  }
}

/** Direct calls as if they were requests (no queue; the whole job is the latency). */
export function directColumns(timings: readonly DirectTiming[], startMs: readonly number[]): RunSamples {
  return {
    startMs: startMs.map(roundUs),
    latencyMs: timings.map((t) => roundUs(t.totalMs)),
    status: timings.map(() => 200),
    computeMs: timings.map((t) => roundUs(t.computeMs)),
    executorMs: timings.map((t) => roundUs(t.totalMs)),
    queueMs: timings.map(() => 0),
  }
}

/** Probes, column-wise by kind, times relative to `originEpochMs`. */
export function probeColumns(probes: readonly ProbeSample[], originEpochMs: number): RunProbes {
  const columns: RunProbes = {
    fresh: { sentAtMs: [], latencyMs: [], ok: [] },
    keepAlive: { sentAtMs: [], latencyMs: [], ok: [] },
  }
  for (const probe of probes) {
    const column = columns[probe.kind]
    column.sentAtMs.push(roundUs(probe.sentAtEpochMs - originEpochMs))
    column.latencyMs.push(roundUs(probe.latencyMs))
    column.ok.push(probe.ok)
  }
  return columns
}
