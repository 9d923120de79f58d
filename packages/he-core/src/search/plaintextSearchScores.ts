import type { SearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { scaleDatabaseVectors, scaleQueryVector } from './scaleVectors.ts'

/**
 * The scores the encrypted search must reproduce exactly: Σ_j X[r][j]·q[j] over the
 * scaled, rounded vectors, for every row. The test oracle, and a way for a data owner
 * to check a deployment.
 */
export function plaintextSearchScores(
  config: SearchConfig,
  database: SearchDatabase,
  query: ArrayLike<number>,
): Float64Array {
  const x = scaleDatabaseVectors(config, database)
  const q = scaleQueryVector(config, query)
  const d = config.dimension
  const scores = new Float64Array(config.rows)
  for (let row = 0; row < config.rows; row++) {
    let sum = 0
    for (let j = 0; j < d; j++) sum += (x[row * d + j] as number) * (q[j] as number)
    scores[row] = sum
  }
  return scores
}
