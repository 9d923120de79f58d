import { HeError } from '../errors/HeError.ts'

/*
 * sealbox's one median and one percentile: the benchmarks' statistics module
 * (packages/bench/src/core/stats.ts) re-exports these, and the server's load tests use
 * them from here, so a test bound and a report never disagree on what "median" means.
 */

/** Median of a non-empty list (mean of the two middle values for even lengths). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new HeError('INVALID_INPUT', 'median of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Nearest-rank percentile (q in 0…1) of an ascending list; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index] as number
}
