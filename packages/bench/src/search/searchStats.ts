/** Median and minimum of samples (milliseconds). */
export interface Spread {
  median: number
  min: number
  samples: number
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, samples: 0 }
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
  return { median, min: sorted[0] as number, samples: sorted.length }
}

export function medianOf(values: readonly number[]): number {
  return spread(values).median
}
