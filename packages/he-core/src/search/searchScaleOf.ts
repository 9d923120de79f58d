import type { z } from 'zod'
import { invalidSearchParam } from './invalidSearchParam.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'

/**
 * The largest scale s with (s·R + √D/2)² ≤ (t−1)/2: a scaled, rounded vector has
 * norm ≤ s·R + √D/2 (each coordinate moves by ≤ 1/2), so by Cauchy–Schwarz every
 * score of a database row and a query is at most (t−1)/2 in absolute value and
 * decrypts exactly (centred mod t). For t = 65537, D = 16, R = 1: s = 179.
 */
export function maxSearchScale(plainModulus: number, dimension: number, maxNorm: number): number {
  return Math.floor((Math.sqrt((plainModulus - 1) / 2) - Math.sqrt(dimension) / 2) / maxNorm)
}

/** The scale s of a config at t: the one asked for, checked, or the largest t allows; and that largest. */
export function searchScaleOf(
  spec: Pick<z.output<typeof SearchConfigInput>, 'dimension' | 'scale'>,
  plainModulus: number,
  maxNorm: number,
): { scale: number; maxScale: number } {
  const t = plainModulus
  const dimension = spec.dimension
  const maxScale = maxSearchScale(t, dimension, maxNorm)
  if (maxScale < 1) {
    throw invalidSearchParam(
      'params.plainModulus',
      `t=${t} is too small for D=${dimension} and norm ${maxNorm}: scores must fit (−t/2, t/2), which needs (s·${maxNorm} + √D/2)² ≤ (t−1)/2 with s ≥ 1; use a larger t or a smaller maxNorm`,
      { limit: t },
    )
  }
  const scale = spec.scale ?? maxScale
  if (scale > maxScale) {
    throw invalidSearchParam(
      'scale',
      `s=${scale} can overflow: scores must fit (−t/2, t/2) with t=${t}, so s ≤ (√((t−1)/2) − √D/2)/maxNorm = ${maxScale}`,
      { limit: maxScale },
    )
  }
  return { scale, maxScale }
}
