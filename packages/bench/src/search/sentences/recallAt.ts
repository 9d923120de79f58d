import { type SearchDatabase, topKIndices } from '@sealbox/he-core/search'

/**
 * The `k` rows of `database` nearest `query` by exact float cosine (ties to the lower row,
 * as `topKIndices` breaks them): the truth recall is measured against.
 */
export function cosineTopK(database: SearchDatabase, query: ArrayLike<number>, k: number): number[] {
  const d = database.dimension
  let qq = 0
  for (let j = 0; j < d; j++) qq += (query[j] as number) ** 2
  const scores = new Float64Array(database.rows)
  for (let row = 0; row < database.rows; row++) {
    let dot = 0
    let xx = 0
    for (let j = 0; j < d; j++) {
      const x = database.vectors[row * d + j] as number
      dot += x * (query[j] as number)
      xx += x * x
    }
    scores[row] = xx > 0 && qq > 0 ? dot / Math.sqrt(xx * qq) : Number.NEGATIVE_INFINITY
  }
  return topKIndices(scores, k)
}

/** |found ∩ truth| / |truth|: recall@k of a result list against the true top k. */
export function recallAt(found: readonly number[], truth: readonly number[]): number {
  if (truth.length === 0) return 1
  const wanted = new Set(truth)
  return found.filter((row) => wanted.has(row)).length / truth.length
}
