import { median, minimum } from '../core/stats.ts'

/** Median and minimum of samples (milliseconds), by the bench's one stats module. */
export interface Spread {
  median: number
  min: number
  samples: number
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, samples: 0 }
  return { median: median(values), min: minimum(values), samples: values.length }
}
