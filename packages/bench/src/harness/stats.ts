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
