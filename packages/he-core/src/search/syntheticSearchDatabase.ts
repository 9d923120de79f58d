import { HeError } from '../errors/HeError.ts'
import { SEARCH_MAX_ROWS } from './SearchConfigInput.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { SearchRowSource } from './SearchRowSource.ts'
import { gaussian, mulberry32 } from './seededRandom.ts'

function unitVectors(seed: number, count: number, dimension: number): Float64Array {
  return nextUnitVectors(gaussian(mulberry32(seed)), count, dimension)
}

/** The next `count` unit vectors of one seeded Gaussian stream. */
function nextUnitVectors(normal: () => number, count: number, dimension: number): Float64Array {
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
  /**
   * Draw rows around this many random unit centres (a clustered dataset, like embeddings of
   * a corpus of topics) instead of uniformly: row = normalise(centre + spread · Gaussian / √D).
   */
  topics?: number
  /** The centres' seed (default `seed`): two databases with one topic seed share their topics (queries drawn like the data). */
  topicSeed?: number
  /** Spread of a row around its centre (default 0.5: cosine to its centre ≈ 0.9). */
  spread?: number
  /**
   * Group the topics under this many random unit subjects (a corpus's broad fields, each
   * with its own topics, as sentence embeddings have): topic centre = normalise(subject +
   * topicSpread · Gaussian / √D), topic t under subject t mod subjects. Default: no
   * subjects, every topic centre independent (nearly orthogonal to every other).
   */
  subjects?: number
  /** Spread of a topic centre around its subject (default 1: cosine to its subject ≈ 0.7). */
  topicSpread?: number
}

/** The topic centres: independent unit vectors, or scattered around `subjects` unit subjects. */
function topicCentres(options: SyntheticSearchDatabaseOptions & { seed: number }): Float64Array {
  const { dimension } = options
  const topics = options.topics as number
  const seed = (options.topicSeed ?? options.seed) ^ 0x70b1c5
  if (options.subjects === undefined) return unitVectors(seed, topics, dimension)
  const subjects = unitVectors(seed ^ 0x5b1ec7, options.subjects, dimension)
  const normal = gaussian(mulberry32(seed))
  const noise = (options.topicSpread ?? 1) / Math.sqrt(dimension)
  const out = new Float64Array(topics * dimension)
  for (let topic = 0; topic < topics; topic++) {
    const subject = topic % options.subjects
    let squares = 0
    for (let j = 0; j < dimension; j++) {
      const value = (subjects[subject * dimension + j] as number) + noise * normal()
      out[topic * dimension + j] = value
      squares += value * value
    }
    const norm = Math.sqrt(squares) || 1
    for (let j = 0; j < dimension; j++) out[topic * dimension + j] = (out[topic * dimension + j] as number) / norm
  }
  return out
}

function clusteredVectors(options: SyntheticSearchDatabaseOptions & { seed: number }): Float64Array {
  const { rows, dimension, seed } = options
  const topics = options.topics as number
  const spread = options.spread ?? 0.5
  const centres = topicCentres(options)
  const uniform = mulberry32(seed)
  const normal = gaussian(uniform)
  const out = new Float64Array(rows * dimension)
  const noise = spread / Math.sqrt(dimension)
  for (let row = 0; row < rows; row++) {
    const topic = Math.floor(uniform() * topics)
    let squares = 0
    for (let j = 0; j < dimension; j++) {
      const value = (centres[topic * dimension + j] as number) + noise * normal()
      out[row * dimension + j] = value
      squares += value * value
    }
    const norm = Math.sqrt(squares) || 1
    for (let j = 0; j < dimension; j++) out[row * dimension + j] = (out[row * dimension + j] as number) / norm
  }
  return out
}

/**
 * V uniformly random unit vectors (normalised Gaussians) of dimension D, ids 0…V−1, or
 * with `topics`, unit vectors scattered around that many random centres.
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
  const { topics } = options
  if (topics !== undefined && (!Number.isInteger(topics) || topics < 1)) {
    throw new HeError('INVALID_INPUT', `synthetic topics must be a positive integer, got ${topics}`)
  }
  const { subjects } = options
  if (subjects !== undefined && (topics === undefined || !Number.isInteger(subjects) || subjects < 1)) {
    throw new HeError('INVALID_INPUT', `synthetic subjects must be a positive integer, with topics; got ${subjects}`)
  }
  const ids = Array.from({ length: rows }, (_, row) => row)
  const vectors = topics === undefined ? unitVectors(seed, rows, dimension) : clusteredVectors({ ...options, seed })
  const database: SearchDatabase = { dimension, rows, vectors, ids }
  if (options.withMetadata) database.metadata = ids.map((row) => ({ name: `item ${row}` }))
  return database
}

/**
 * The rows of `syntheticSearchDatabase({ rows, dimension, seed })` (uniform, no topics),
 * made as they are read: one seeded stream, so reading in order (as processing does)
 * generates each row once and holds only the rows asked for; reading backwards restarts
 * the stream. Ids are the row numbers. A server processes a million synthetic rows this
 * way without holding the 3 GB of them beside the processed copy.
 */
export function syntheticSearchRows(
  options: Pick<SyntheticSearchDatabaseOptions, 'rows' | 'dimension' | 'seed'>,
): SearchRowSource {
  const { rows, dimension, seed = 1 } = options
  // The same checks, and the same stream, as the database in memory.
  syntheticSearchDatabase({ rows: 1, dimension, seed })
  if (!Number.isInteger(rows) || rows < 1 || rows > SEARCH_MAX_ROWS) {
    throw new HeError('INVALID_INPUT', `synthetic rows must be an integer in 1…${SEARCH_MAX_ROWS}, got ${rows}`)
  }
  let normal = gaussian(mulberry32(seed))
  let next = 0
  return {
    rows,
    dimension,
    readRows(firstRow, count) {
      if (
        !Number.isInteger(firstRow) ||
        !Number.isInteger(count) ||
        firstRow < 0 ||
        count < 0 ||
        firstRow + count > rows
      ) {
        throw new HeError(
          'INVALID_INPUT',
          `rows ${firstRow}…${firstRow + count - 1} are outside the ${rows} synthetic rows`,
        )
      }
      if (firstRow < next) {
        normal = gaussian(mulberry32(seed))
        next = 0
      }
      // Rows skipped over are generated and dropped a block at a time: the stream is sequential.
      while (next < firstRow)
        next += nextUnitVectors(normal, Math.min(4096, firstRow - next), dimension).length / dimension
      next += count
      return nextUnitVectors(normal, count, dimension)
    },
  }
}

/** A deterministic random unit query vector (seeded like the database, independent of it). */
export function syntheticSearchQuery(dimension: number, seed = 1): Float64Array {
  // Offset the seed so query 1 is not row 0 of database 1.
  return unitVectors((seed ^ 0x5eed5eed) >>> 0, 1, dimension)
}
