import { TIMING_PHASES, type TimingPhase } from '@sealbox/he-core/client'
import { percentile } from '../core/stats.ts'
import { errorCodes } from '../load/clientFailure.ts'
import type { LoadResult, RequestSample } from '../load/serverBenchProtocol.ts'

/**
 * The contract's phases a keyed search is not split into here: `auth`, `decode` and
 * `encode` are the route's own event-loop work, `store` is a key-set upload's, and `cpu`
 * is not a wall-clock phase.
 */
const NOT_KEY_PHASES = ['auth', 'decode', 'encode', 'store', 'cpu'] as const satisfies readonly TimingPhase[]
export type KeyPhase = Exclude<TimingPhase, (typeof NOT_KEY_PHASES)[number]>

/**
 * The request phases the report splits time into (ms, mean per request), in the server's
 * `Server-Timing` order: the contract's phases (`keyload` is the durable-store fetch)
 * less those above; `transfer` also takes the client time the server did not account for.
 */
export const KEY_PHASES: readonly KeyPhase[] = TIMING_PHASES.filter(
  (phase): phase is KeyPhase => !(NOT_KEY_PHASES as readonly TimingPhase[]).includes(phase),
)

/** Where a request's evaluation keys came from. */
export type KeyTier = 'worker' | 'bytes' | 'store'

/** What one measured load run comes to. */
export interface LoadSummary {
  requests: number
  errors: number
  errorCodes: Record<string, number>
  /** Successful requests per second over the measured wall time. */
  throughput: number
  latency: { p50: number; p95: number; p99: number; mean: number }
  /** Mean ms per request of each phase. */
  phases: Record<KeyPhase, number>
  /** Mean CPU time of the worker thread per successful request (Server-Timing `cpu`), ms; 0 if absent. */
  cpuMs: number
  /** Share of requests whose keys came from each tier (sums to 1). */
  tiers: Record<KeyTier, number>
  /**
   * Mean ms a worker miss took, by the tier that served it: `keyload` + `keydeserialize`
   * of those requests (NaN when none came from that tier).
   */
  missMs: Record<'bytes' | 'store', number>
  stoppedBy: LoadResult['stoppedBy']
  wallMs: number
}

/**
 * Where a request's keys came from, read off the phases its `Server-Timing` names: a
 * store read (`keyload`) means the durable store; key deserialization without a store
 * read (`keydeserialize`) means the node's cache of serialized bytes; neither means the
 * worker already held them deserialized.
 */
export function tierOf(phases: Record<string, number>): KeyTier {
  if (phases.keyload !== undefined) return 'store'
  return phases.keydeserialize === undefined ? 'worker' : 'bytes'
}

/** Splits a request into the report's phases; `transfer` is client time the server did not account for. */
export function phaseSplit(sample: RequestSample): Record<KeyPhase, number> {
  const split = phaseRecord((phase) => sample.phases[phase] ?? 0)
  split.transfer += Math.max(0, sample.latencyMs - (sample.phases.total ?? 0))
  return split
}

/** A value for every report phase. */
function phaseRecord(value: (phase: KeyPhase) => number): Record<KeyPhase, number> {
  // KEY_PHASES is every KeyPhase (the filter keeps exactly the type's members).
  return Object.fromEntries(KEY_PHASES.map((phase) => [phase, value(phase)])) as Record<KeyPhase, number>
}

export function summarizeLoad(result: Pick<LoadResult, 'samples' | 'wallMs' | 'stoppedBy'>): LoadSummary {
  const ok = result.samples.filter((sample) => sample.status === 200)
  const latencies = ok.map((sample) => sample.latencyMs).sort((a, b) => a - b)
  const phases = phaseRecord(() => 0)
  const tiers: Record<KeyTier, number> = { worker: 0, bytes: 0, store: 0 }
  const missTotals = { bytes: { ms: 0, count: 0 }, store: { ms: 0, count: 0 } }
  let cpuMs = 0
  for (const sample of ok) {
    const tier = tierOf(sample.phases)
    if (tier !== 'worker') {
      missTotals[tier].ms += (sample.phases.keyload ?? 0) + (sample.phases.keydeserialize ?? 0)
      missTotals[tier].count++
    }
    cpuMs += (sample.phases.cpu ?? 0) / ok.length
    const split = phaseSplit(sample)
    for (const phase of KEY_PHASES) phases[phase] += split[phase] / ok.length
    tiers[tierOf(sample.phases)] += 1 / ok.length
  }
  return {
    requests: result.samples.length,
    errors: result.samples.length - ok.length,
    errorCodes: errorCodes(result.samples),
    throughput: result.wallMs > 0 ? (ok.length / result.wallMs) * 1000 : 0,
    latency: {
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      p99: percentile(latencies, 0.99),
      mean: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
    },
    phases,
    cpuMs,
    tiers,
    missMs: {
      bytes: missTotals.bytes.count > 0 ? missTotals.bytes.ms / missTotals.bytes.count : Number.NaN,
      store: missTotals.store.count > 0 ? missTotals.store.ms / missTotals.store.count : Number.NaN,
    },
    stoppedBy: result.stoppedBy,
    wallMs: result.wallMs,
  }
}
