import { mean as meanOf, medianOfFinite, percentile } from '../core/stats.ts'
import type { DirectTiming } from '../load/PreparedWorkload.ts'
import type { LoadResult, ProbeKind, ProbeSample } from '../load/serverBenchProtocol.ts'

/**
 * The server's prom-client event-loop monitor runs at a 10 ms resolution
 * (`eventLoopMonitoringPrecision` in apps/server's ServerMetrics), and
 * monitorEventLoopDelay records the whole timer interval: an idle loop reads ~10 ms.
 * The report subtracts it, so 0 means "no delay".
 */
export const LOOP_RESOLUTION_MS = 10

/** The numbers of one run of one cell (ms unless named otherwise); null where a row has no such thing. */
export const RUN_STAT_KEYS = [
  'requests',
  'errors',
  /** Successful requests per second over the measured wall time. */
  'throughput',
  'latencyP50',
  'latencyP95',
  'latencyP99',
  'latencyMean',
  /** Server-Timing `compute` (median): the HE work inside the executor. */
  'computeP50',
  /** Everything the worker ran: keyload + deserialize + compute + serialize (median). */
  'executorP50',
  /** Waiting for a worker (median). */
  'queueP50',
  'healthzFreshP50',
  'healthzFreshP99',
  'healthzFreshMax',
  'healthzKeepAliveP50',
  'healthzKeepAliveP99',
  'healthzKeepAliveMax',
  'probes',
  'probeFailures',
  /** How late the prober itself sent its probes (p99): its own share of the machine's noise. */
  'proberLateP99',
  'loopDelayP50',
  'loopDelayP99',
  'loopDelayMax',
] as const
export type RunStatKey = (typeof RUN_STAT_KEYS)[number]
export type RunStats = Record<RunStatKey, number | null>

/** The bench's median of the finite values (core/stats.ts), as the report's null when nothing is left. */
function medianOrNull(values: ReadonlyArray<number | null | undefined>): number | null {
  const median = medianOfFinite(values)
  return Number.isNaN(median) ? null : median
}

const ascending = (values: number[]) => values.sort((a, b) => a - b)
const mean = (values: readonly number[]) => (values.length === 0 ? Number.NaN : meanOf(values))

function emptyStats(): RunStats {
  return Object.fromEntries(RUN_STAT_KEYS.map((key) => [key, null])) as RunStats
}

/** The worker's share of a request: every phase the executor measured. */
export function executorMs(phases: Record<string, number>): number {
  return (phases.keyload ?? 0) + (phases.deserialize ?? 0) + (phases.compute ?? 0) + (phases.serialize ?? 0)
}

function probeStats(stats: RunStats, kind: ProbeKind, probes: readonly ProbeSample[]): void {
  const latencies = ascending(probes.filter((p) => p.kind === kind).map((p) => p.latencyMs))
  if (latencies.length === 0) return
  const prefix = kind === 'fresh' ? 'healthzFresh' : 'healthzKeepAlive'
  stats[`${prefix}P50`] = percentile(latencies, 0.5)
  stats[`${prefix}P99`] = percentile(latencies, 0.99)
  stats[`${prefix}Max`] = latencies.at(-1) ?? null
}

/** Probes sent inside `[startEpochMs, endEpochMs]`. */
export function probesIn(
  probes: readonly ProbeSample[],
  window: { startEpochMs: number; endEpochMs: number },
): ProbeSample[] {
  return probes.filter((p) => p.sentAtEpochMs >= window.startEpochMs && p.sentAtEpochMs <= window.endEpochMs)
}

/** The stats of one server run of one cell: requests, the probes sent meanwhile, the loop reading. */
export function serverRunStats(load: LoadResult, probes: readonly ProbeSample[]): RunStats {
  const stats = emptyStats()
  const ok = load.samples.filter((s) => s.status === 200)
  const latencies = ascending(ok.map((s) => s.latencyMs))
  stats.requests = load.samples.length
  stats.errors = load.samples.length - ok.length
  stats.throughput = load.wallMs > 0 ? (ok.length / load.wallMs) * 1000 : null
  if (latencies.length > 0) {
    stats.latencyP50 = percentile(latencies, 0.5)
    stats.latencyP95 = percentile(latencies, 0.95)
    stats.latencyP99 = percentile(latencies, 0.99)
    stats.latencyMean = mean(latencies)
    stats.computeP50 = medianOrNull(ok.map((s) => s.phases.compute))
    stats.executorP50 = medianOrNull(ok.map((s) => executorMs(s.phases)))
    stats.queueP50 = medianOrNull(ok.map((s) => s.phases.queue ?? 0))
  }
  probeStats(stats, 'fresh', probes)
  probeStats(stats, 'keepAlive', probes)
  stats.probes = probes.length
  stats.probeFailures = probes.filter((p) => !p.ok).length
  stats.proberLateP99 = probes.length ? percentile(ascending(probes.map((p) => p.lateMs)), 0.99) : null
  if (load.loopDelay) {
    stats.loopDelayP50 = Math.max(0, load.loopDelay.p50 - LOOP_RESOLUTION_MS)
    stats.loopDelayP99 = Math.max(0, load.loopDelay.p99 - LOOP_RESOLUTION_MS)
    stats.loopDelayMax = Math.max(0, load.loopDelay.max - LOOP_RESOLUTION_MS)
  }
  return stats
}

/** The stats of one Direct run: each call is one "request" at concurrency 1. */
export function directRunStats(timings: readonly DirectTiming[], wallMs: number): RunStats {
  const stats = emptyStats()
  const totals = ascending(timings.map((t) => t.totalMs))
  stats.requests = timings.length
  stats.errors = 0
  stats.throughput = wallMs > 0 ? (timings.length / wallMs) * 1000 : null
  stats.latencyP50 = percentile(totals, 0.5)
  stats.latencyP95 = percentile(totals, 0.95)
  stats.latencyP99 = percentile(totals, 0.99)
  stats.latencyMean = mean(totals)
  stats.computeP50 = medianOrNull(timings.map((t) => t.computeMs))
  stats.executorP50 = percentile(totals, 0.5)
  stats.queueP50 = 0
  return stats
}

/** Per-key medians over the repeats of a cell. */
export function medianStats(runs: readonly RunStats[]): RunStats {
  const stats = emptyStats()
  for (const key of RUN_STAT_KEYS) stats[key] = medianOrNull(runs.map((run) => run[key]))
  return stats
}
