import { HeError } from '../errors/HeError.ts'

/**
 * Indices of the k largest scores, best first; equal scores rank by lower index
 * (so the order is deterministic and matches a stable sort of the plaintext scores).
 * O(V log k): a sorted buffer of k candidates with binary insertion.
 */
export function topKIndices(scores: ArrayLike<number>, k: number): number[] {
  if (!Number.isInteger(k) || k < 1) throw new HeError('INVALID_INPUT', `k must be a positive integer, got ${k}`)
  const size = Math.min(k, scores.length)
  const best: number[] = []
  // a ranks before b: higher score, then lower index.
  const before = (a: number, b: number) => {
    const sa = scores[a] as number
    const sb = scores[b] as number
    return sa > sb || (sa === sb && a < b)
  }
  for (let i = 0; i < scores.length; i++) {
    if (best.length === size && !before(i, best[size - 1] as number)) continue
    let lo = 0
    let hi = best.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (before(best[mid] as number, i)) lo = mid + 1
      else hi = mid
    }
    best.splice(lo, 0, i)
    if (best.length > size) best.pop()
  }
  return best
}
