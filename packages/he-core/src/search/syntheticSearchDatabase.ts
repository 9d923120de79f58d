import { HeError } from '../errors/HeError.ts'
import { SEARCH_MAX_ROWS } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'

/** A small deterministic PRNG (mulberry32): the same seed gives the same vectors everywhere. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / 2 ** 32
  }
}

/** Standard normal samples (Box–Muller) from a uniform source. */
function gaussian(uniform: () => number): () => number {
  return () => {
    const u = 1 - uniform()
    const v = uniform()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }
}

function unitVectors(seed: number, count: number, dimension: number): Float64Array {
  const normal = gaussian(mulberry32(seed))
  const out = new Float64Array(count * dimension)
  for (let row = 0; row < count; row++) {
    let squares = 0
    for (let j = 0; j < dimension; j++) {
      const value = normal()
      out[row * dimension + j] = value
      squares += value * value
    }
    // A zero Gaussian vector has probability 0; guard anyway so a row is never 0/0.
    const norm = Math.sqrt(squares) || 1
    for (let j = 0; j < dimension; j++) out[row * dimension + j] = (out[row * dimension + j] as number) / norm
  }
  return out
}

/** Options of `syntheticSearchDatabase`. */
export interface SyntheticSearchDatabaseOptions {
  rows: number
  dimension: number
  /** Any integer; the same seed gives the same database in Node and in browsers. */
  seed?: number
  /** Attach `{ name: "item <row>" }` metadata to every row. */
  withMetadata?: boolean
}

/**
 * V uniformly random unit vectors (normalised Gaussians) of dimension D, ids 0…V−1.
 * Unit norm fits both metrics (cosine, and dot with maxNorm 1).
 */
export function syntheticSearchDatabase(options: SyntheticSearchDatabaseOptions): SearchDatabase {
  const { rows, dimension, seed = 1 } = options
  if (!Number.isInteger(rows) || rows < 1 || rows > SEARCH_MAX_ROWS) {
    throw new HeError('INVALID_INPUT', `synthetic rows must be an integer in 1…${SEARCH_MAX_ROWS}, got ${rows}`)
  }
  if (!Number.isInteger(dimension) || dimension < 1) {
    throw new HeError('INVALID_INPUT', `synthetic dimension must be a positive integer, got ${dimension}`)
  }
  const ids = Array.from({ length: rows }, (_, row) => row)
  const database: SearchDatabase = { dimension, rows, vectors: unitVectors(seed, rows, dimension), ids }
  if (options.withMetadata) database.metadata = ids.map((row) => ({ name: `item ${row}` }))
  return database
}

/** A deterministic random unit query vector (seeded like the database, independent of it). */
export function syntheticSearchQuery(dimension: number, seed = 1): Float64Array {
  // Offset the seed so query 1 is not row 0 of database 1.
  return unitVectors((seed ^ 0x5eed5eed) >>> 0, 1, dimension)
}
