import { type SearchDatabase, topKIndices } from '@sealbox/he-core/search'

/** What `cosineTopK` reads of a database: its vectors, row-major, V × D. */
export type CosineRows = Pick<SearchDatabase, 'dimension' | 'rows'> & { vectors: ArrayLike<number> }

/**
 * The `k` rows of `database` nearest `query` by exact float cosine (ties to the lower row,
 * as `topKIndices` breaks them): the truth recall is measured against, by every search bench
 * (million rows, clusters, sentences).
 */
export function cosineTopK(
  database: CosineRows,
  query: ArrayLike<number>,
  k: number,
  /** Only these rows (ascending); every row when absent. */
  candidates?: readonly number[],
): number[] {
  const d = database.dimension
  let qq = 0
  for (let j = 0; j < d; j++) qq += (query[j] as number) ** 2
  const rows = candidates ?? Array.from({ length: database.rows }, (_, row) => row)
  const scores = new Float64Array(rows.length)
  for (const [i, row] of rows.entries()) {
    let dot = 0
    let xx = 0
    for (let j = 0; j < d; j++) {
      const x = database.vectors[row * d + j] as number
      dot += x * (query[j] as number)
      xx += x * x
    }
    scores[i] = xx > 0 && qq > 0 ? dot / Math.sqrt(xx * qq) : Number.NEGATIVE_INFINITY
  }
  return topKIndices(scores, k).map((i) => rows[i] as number)
}

/** |found ∩ truth| / |truth|: recall@k of a result list against the true top k. */
export function recallAt(found: readonly number[], truth: readonly number[]): number {
  if (truth.length === 0) return 1
  const wanted = new Set(truth)
  return found.filter((row) => wanted.has(row)).length / truth.length
}
