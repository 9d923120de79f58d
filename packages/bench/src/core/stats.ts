/*
 * The bench's one statistics module: every report takes its medians and percentiles
 * from here, so two tables never disagree on what "median" means. The median and the
 * percentile are he-core's (`@sealbox/he-core/testing`), shared with the server's load tests.
 */

import { median } from '@sealbox/he-core/testing'
import { BenchError } from '../BenchError.ts'

export { median, percentile } from '@sealbox/he-core/testing'

/** Smallest value of a non-empty list. */
export function minimum(values: readonly number[]): number {
  if (values.length === 0) throw new BenchError('INTERNAL', 'minimum of an empty list')
  return Math.min(...values)
}

/** Arithmetic mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new BenchError('INTERNAL', 'mean of an empty list')
  return values.reduce((sum, v) => sum + v, 0) / values.length
}

/** Geometric mean of positive values (the right average for ratios). */
export function geometricMean(values: readonly number[]): number {
  if (values.length === 0) throw new BenchError('INTERNAL', 'geometric mean of an empty list')
  return Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length)
}

/** True when the largest and smallest of the last `window` values differ by at most `tolerance` (relative). */
export function isStable(values: readonly number[], window: number, tolerance: number): boolean {
  if (values.length < window) return false
  const tail = values.slice(-window)
  const lo = Math.min(...tail)
  const hi = Math.max(...tail)
  return lo > 0 && hi / lo - 1 <= tolerance
}

/** Median of the finite values (nulls, undefined and NaN ignored); NaN when none is left. */
export function medianOfFinite(values: ReadonlyArray<number | null | undefined>): number {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
  return finite.length === 0 ? Number.NaN : median(finite)
}

/** Median and minimum of samples (milliseconds), and how many there were. */
export interface Spread {
  median: number
  min: number
  samples: number
}

/** The spread of `values`; NaN median and minimum when there are none. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, samples: 0 }
  return { median: median(values), min: minimum(values), samples: values.length }
}

/**
 * Times a synchronous call in this thread: `warmup` unrecorded calls, then `samples`
 * timed ones, each on its own (`performance.now()` around one call).
 */
export function timeSpread(fn: () => void, { samples, warmup }: { samples: number; warmup: number }): Spread {
  for (let i = 0; i < warmup; i++) fn()
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    const start = performance.now()
    fn()
    times.push(performance.now() - start)
  }
  return spread(times)
}
