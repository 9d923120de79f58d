/*
 * The bench's one statistics module: every report takes its medians and percentiles
 * from here, so two tables never disagree on what "median" means.
 */

/** Median of a non-empty list (mean of the two middle values for even lengths). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list')
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Smallest value of a non-empty list. */
export function minimum(values: readonly number[]): number {
  if (values.length === 0) throw new Error('minimum of an empty list')
  return Math.min(...values)
}

/** Arithmetic mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean of an empty list')
  return values.reduce((sum, v) => sum + v, 0) / values.length
}

/** Geometric mean of positive values (the right average for ratios). */
export function geometricMean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('geometric mean of an empty list')
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

/** Nearest-rank percentile (q in 0…1) of an ascending list; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index] as number
}
