import { isStable, mean, median, minimum } from '../core/stats.ts'
import type { CellBudget, MeasurePolicy } from '../protocol/benchProtocol.ts'
import type { Clock } from './BenchEnv.ts'
import type { PreparedOp } from './ops/PreparedOp.ts'

/** The timing part of a cell result (µs per call). */
export interface CellTiming {
  samplesUs: number[]
  callsPerSample: number
  firstCallUs: number
  warmupCalls: number
  warmupSamplesUs: number[]
  medianUs: number
  minUs: number
  meanUs: number
  capped: boolean
}

/** Most calls in one sample: a 10 ns op would otherwise ask for 200,000. */
const MAX_CALLS_PER_SAMPLE = 20_000

/**
 * Times `calls` calls of `op`, in batches of at most `op.maxBatch`; only the calls sit
 * between the clock readings. Returns milliseconds.
 */
export function timeCalls(op: PreparedOp, calls: number, now: Clock): number {
  let total = 0
  let done = 0
  while (done < calls) {
    const batch = Math.min(op.maxBatch, calls - done)
    op.setup(batch)
    try {
      const t0 = now()
      for (let i = 0; i < batch; i++) op.call(i)
      total += now() - t0
    } finally {
      op.teardown()
    }
    done += batch
  }
  return total
}

/** Calls needed for a sample of at least `minMs`, given the current per-call estimate. */
function callsForAtLeast(minMs: number, estimateMs: number): number {
  return Math.min(MAX_CALLS_PER_SAMPLE, Math.max(1, Math.ceil(minMs / Math.max(estimateMs, 1e-4))))
}

/**
 * Measures one cell: one cold call, warm-up until the last `warmupWindow` warm-up
 * samples agree within `warmupTolerance` (or the warm-up budget is spent), then
 * `repeats` samples of `iterations` calls — more calls for cheap ops so each sample
 * lasts `minSampleMs`, fewer calls or samples when the per-n budget says so.
 */
export function measureCell(op: PreparedOp, policy: MeasurePolicy, budget: CellBudget, now: Clock): CellTiming {
  const start = now()
  const firstMs = timeCalls(op, 1, now)
  let estimateMs = firstMs
  let warmupCalls = 1
  const warmupSamplesUs: number[] = []
  for (;;) {
    const warmedUp =
      warmupCalls >= policy.warmupMinCalls && isStable(warmupSamplesUs, policy.warmupWindow, policy.warmupTolerance)
    if (warmedUp || now() - start >= budget.warmupMs) break
    const calls = callsForAtLeast(policy.minSampleMs, estimateMs)
    estimateMs = timeCalls(op, calls, now) / calls
    warmupSamplesUs.push(estimateMs * 1000)
    warmupCalls += calls
  }

  let callsPerSample = Math.max(policy.iterations, callsForAtLeast(policy.minSampleMs, estimateMs))
  let repeats = policy.repeats
  let capped = false
  const planned = repeats * callsPerSample * estimateMs
  if (planned > budget.measureMs) {
    capped = true
    const fit = Math.floor(budget.measureMs / (repeats * estimateMs))
    callsPerSample = Math.max(callsForAtLeast(policy.minSampleMs, estimateMs), Math.min(callsPerSample, fit))
    if (callsPerSample === 1 && repeats * estimateMs > budget.measureMs) {
      repeats = Math.max(policy.minRepeats, Math.floor(budget.measureMs / estimateMs))
    }
  }

  const samplesUs: number[] = []
  for (let r = 0; r < repeats; r++) samplesUs.push((timeCalls(op, callsPerSample, now) / callsPerSample) * 1000)
  return {
    samplesUs,
    callsPerSample,
    firstCallUs: firstMs * 1000,
    warmupCalls,
    warmupSamplesUs,
    medianUs: median(samplesUs),
    minUs: minimum(samplesUs),
    meanUs: mean(samplesUs),
    capped,
  }
}

/** The smallest step between two readings of `now` (µs): 0.1 in Node, 5–20 when a browser is isolated, 1000 when not. */
export function timerResolutionUs(now: Clock): number {
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < 50; i++) {
    const t0 = now()
    let t1 = now()
    while (t1 === t0) t1 = now()
    best = Math.min(best, t1 - t0)
  }
  return best * 1000
}
