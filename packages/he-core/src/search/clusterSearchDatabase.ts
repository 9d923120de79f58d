import { HeError } from '../errors/HeError.ts'
import type { SearchClustering } from './SearchClustering.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { isSearchRowSource, type SearchRowSource, searchRowSourceOf } from './SearchRowSource.ts'
import { scaleSearchRows } from './scaleVectors.ts'
import { mulberry32 } from './seededRandom.ts'

/** Options of `clusterSearchDatabase`. */
export interface ClusterSearchDatabaseOptions {
  /** Seed of the k-means++ start (default 1): the same database, config and seed give the same clusters. */
  seed?: number
  /** Lloyd iterations on the training sample at most (default 20); it stops earlier when no row moves. */
  iterations?: number
  /** Rows the centroids are trained on, evenly spaced over the database (default max(32,768, 64 per cluster), at most V). */
  sampleRows?: number
}

/** The default training sample: enough rows per cluster and per topic of a large corpus, far fewer than V. */
const DEFAULT_SAMPLE_ROWS = 32_768
/** Nearest clusters remembered per row by the streamed assignment; a row whose all are full is placed in a second pass. */
const REMEMBERED_CLUSTERS = 8

/**
 * The scaled database (V × D, row-major), read one block of rows at a time, in the
 * narrowest integer array its values fit: a scaled component is at most s·max(1, maxNorm)
 * in magnitude, so at D = 384 and the usual s of a few hundred a million rows take 768 MB
 * of int16 instead of 1.5 GB of int32 (cluster-private processing gathers every block's
 * rows from all the clusters, so it holds them all).
 */
export function scaleWholeDatabase(config: SearchConfig, source: SearchRowSource): Int8Array | Int16Array | Int32Array {
  const d = config.dimension
  const bound = Math.ceil(config.scale * Math.max(1, config.maxNorm) * (1 + 1e-9))
  const size = config.rows * d
  const out = bound <= 127 ? new Int8Array(size) : bound <= 32767 ? new Int16Array(size) : new Int32Array(size)
  const step = config.polyModulusDegree
  for (let first = 0; first < config.rows; first += step) {
    const count = Math.min(step, config.rows - first)
    out.set(scaleSearchRows(config, source, first, count), first * d)
  }
  return out
}

/** Centroids in the scaled space with their squared norms: ‖x − c‖² − ‖x‖² = ‖c‖² − 2 x·c ranks clusters for a row. */
class Centroids {
  readonly k: number
  readonly d: number
  readonly values: Float64Array
  readonly norms: Float64Array
  constructor(k: number, d: number) {
    this.k = k
    this.d = d
    this.values = new Float64Array(k * d)
    this.norms = new Float64Array(k)
  }

  /** ‖c‖² − 2 x·c for the row of `rows` starting at `at`. */
  distance(rows: Int32Array, at: number, c: number): number {
    const { values, d } = this
    let dot = 0
    const ct = c * d
    for (let j = 0; j < d; j++) dot += (rows[at + j] as number) * (values[ct + j] as number)
    return (this.norms[c] as number) - 2 * dot
  }

  setToRow(c: number, rows: Int32Array, at: number): void {
    let squares = 0
    for (let j = 0; j < this.d; j++) {
      const value = rows[at + j] as number
      this.values[c * this.d + j] = value
      squares += value * value
    }
    this.norms[c] = squares
  }

  /** Divides accumulated sums by the cluster sizes (an empty cluster keeps its sum of 0s). */
  setMeans(sums: Float64Array, sizes: Int32Array): void {
    for (let c = 0; c < this.k; c++) {
      let squares = 0
      for (let j = 0; j < this.d; j++) {
        const value = (sums[c * this.d + j] as number) / Math.max(1, sizes[c] as number)
        this.values[c * this.d + j] = value
        squares += value * value
      }
      this.norms[c] = squares
    }
  }
}

/**
 * Capacity-constrained assignment: rows in order of regret (how much farther their
 * second-nearest candidate is), each to its nearest candidate with room. `candidates`
 * (rows × width cluster ids, nearest first) and `distances` are read per row; a row whose
 * candidates are all full keeps −1.
 */
function assignBalanced(
  rows: number,
  width: number,
  candidates: Int32Array,
  distances: Float64Array,
  sizes: Int32Array,
  capacity: number,
  assignment: Int32Array,
): void {
  const order = new Int32Array(rows)
  const regret = new Float64Array(rows)
  for (let row = 0; row < rows; row++) {
    order[row] = row
    regret[row] =
      width > 1 ? (distances[row * width + 1] as number) - (distances[row * width] as number) : Number.POSITIVE_INFINITY
  }
  // Rows that lose most by not getting their nearest cluster choose first.
  order.sort((a, b) => (regret[b] as number) - (regret[a] as number) || a - b)
  for (const row of order) {
    let choice = -1
    for (let i = 0; i < width; i++) {
      const c = candidates[row * width + i] as number
      if ((sizes[c] as number) < capacity) {
        choice = c
        break
      }
    }
    if (choice >= 0) sizes[choice] = (sizes[choice] as number) + 1
    assignment[row] = choice
  }
}

/** The `width` nearest clusters of a row (ids and distances, nearest first; ties to the lower id). */
function nearestOf(
  centroids: Centroids,
  rows: Int32Array,
  at: number,
  width: number,
  ids: Int32Array,
  distances: Float64Array,
  out: number,
): void {
  let filled = 0
  for (let c = 0; c < centroids.k; c++) {
    const distance = centroids.distance(rows, at, c)
    if (filled === width && distance >= (distances[out + width - 1] as number)) continue
    let i = filled < width ? filled++ : width - 1
    while (i > 0 && (distances[out + i - 1] as number) > distance) {
      distances[out + i] = distances[out + i - 1] as number
      ids[out + i] = ids[out + i - 1] as number
      i--
    }
    distances[out + i] = distance
    ids[out + i] = c
  }
}

/**
 * Places the rows `assignBalanced` left at −1, weighing every cluster for them (m·C ≥ V:
 * there is room for each), in order of regret as the others were.
 */
function placeLeftovers(
  centroids: Centroids,
  assignment: Int32Array,
  sizes: Int32Array,
  capacity: number,
  rowAt: (row: number) => { rows: Int32Array; at: number },
): void {
  const left: number[] = []
  for (let row = 0; row < assignment.length; row++) if (assignment[row] === -1) left.push(row)
  if (left.length === 0) return
  const k = centroids.k
  const ids = new Int32Array(left.length * k)
  const distances = new Float64Array(left.length * k)
  for (const [i, row] of left.entries()) {
    const { rows, at } = rowAt(row)
    nearestOf(centroids, rows, at, k, ids, distances, i * k)
  }
  const chosen = new Int32Array(left.length).fill(-1)
  assignBalanced(left.length, k, ids, distances, sizes, capacity, chosen)
  for (const [i, row] of left.entries()) assignment[row] = chosen[i] as number
}

/**
 * Balanced k-means: C clusters of at most m = ⌈V/C⌉ rows each (`config.clusters`).
 *
 * The centroids are trained on a sample of rows evenly spaced over the database (seeded
 * k-means++ start, then Lloyd iterations whose assignment is balanced as the final one
 * is). Then every row is assigned in one streamed pass, a block of rows at a time: each
 * row's nearest clusters are remembered, rows choose in order of regret (how much farther
 * their second-nearest centroid is), each its nearest cluster with room; the few whose
 * remembered clusters are all full are placed in a second pass over those rows. The
 * published centroids are the means of the final clusters (a third pass), which is what
 * the client's nearest-cluster choice should measure against. No pass holds more than a
 * block of scaled rows: at V = 1,000,000 × D = 384 the whole scaled database would be
 * 1.5 GB beside the processed copy. Deterministic: the same rows, config and options
 * give the same clustering in Node and in browsers.
 */
export function clusterSearchDatabase(
  config: SearchConfig,
  database: SearchDatabase | SearchRowSource,
  options: ClusterSearchDatabaseOptions = {},
): SearchClustering {
  const layout = config.clusters
  if (!layout) throw new HeError('INVALID_INPUT', `search config ${config.configId} is exact: it has no clusters`)
  const source = isSearchRowSource(database) ? database : searchRowSourceOf(database)
  const v = config.rows
  const d = config.dimension
  const k = layout.clusters
  const capacity = layout.rowsPerCluster
  const step = config.polyModulusDegree
  const centroids = new Centroids(k, d)

  // The training sample, read row by row in ascending order (a streamed source reads forwards).
  const sampleSize = Math.min(v, Math.max(64 * k, options.sampleRows ?? DEFAULT_SAMPLE_ROWS))
  const sample = new Int32Array(sampleSize * d)
  for (let i = 0; i < sampleSize; i++) {
    sample.set(scaleSearchRows(config, source, Math.floor((i * v) / sampleSize), 1), i * d)
  }

  // k-means++ on the sample: each next centre drawn with probability ∝ its squared distance.
  const random = mulberry32(options.seed ?? 1)
  centroids.setToRow(0, sample, Math.floor(random() * sampleSize) * d)
  const nearest = new Float64Array(sampleSize).fill(Number.POSITIVE_INFINITY)
  const squares = new Float64Array(sampleSize)
  for (let i = 0; i < sampleSize; i++) {
    for (let j = 0; j < d; j++) squares[i] = (squares[i] as number) + (sample[i * d + j] as number) ** 2
  }
  for (let c = 1; c < k; c++) {
    let total = 0
    for (let i = 0; i < sampleSize; i++) {
      const distance = Math.max(0, (squares[i] as number) + centroids.distance(sample, i * d, c - 1))
      if (distance < (nearest[i] as number)) nearest[i] = distance
      total += nearest[i] as number
    }
    let target = random() * total
    let pick = sampleSize - 1
    for (let i = 0; i < sampleSize; i++) {
      target -= nearest[i] as number
      if (target <= 0) {
        pick = i
        break
      }
    }
    centroids.setToRow(c, sample, pick * d)
  }

  // Lloyd on the sample, balanced at the sample's own ⌈S/C⌉.
  const width = Math.min(k, REMEMBERED_CLUSTERS)
  const sampleIds = new Int32Array(sampleSize * width)
  const sampleDistances = new Float64Array(sampleSize * width)
  const sampleAssignment = new Int32Array(sampleSize).fill(-1)
  const sizes = new Int32Array(k)
  const sums = new Float64Array(k * d)
  const iterations = options.iterations ?? 20
  const sampleCapacity = Math.ceil(sampleSize / k)
  for (let iteration = 0; iteration < iterations; iteration++) {
    for (let i = 0; i < sampleSize; i++) {
      nearestOf(centroids, sample, i * d, width, sampleIds, sampleDistances, i * width)
    }
    sizes.fill(0)
    const before = sampleAssignment.slice()
    sampleAssignment.fill(-1)
    assignBalanced(sampleSize, width, sampleIds, sampleDistances, sizes, sampleCapacity, sampleAssignment)
    placeLeftovers(centroids, sampleAssignment, sizes, sampleCapacity, (i) => ({ rows: sample, at: i * d }))
    let moved = 0
    for (let i = 0; i < sampleSize; i++) if (before[i] !== sampleAssignment[i]) moved++
    sums.fill(0)
    for (let i = 0; i < sampleSize; i++) {
      const c = sampleAssignment[i] as number
      for (let j = 0; j < d; j++) sums[c * d + j] = (sums[c * d + j] as number) + (sample[i * d + j] as number)
    }
    centroids.setMeans(sums, sizes)
    if (moved === 0) break
  }

  // Every row, streamed: its remembered nearest clusters, then the balanced assignment at m.
  const ids = new Int32Array(v * width)
  const distances = new Float64Array(v * width)
  for (let first = 0; first < v; first += step) {
    const count = Math.min(step, v - first)
    const block = scaleSearchRows(config, source, first, count)
    for (let i = 0; i < count; i++) nearestOf(centroids, block, i * d, width, ids, distances, (first + i) * width)
  }
  const assignment = new Int32Array(v).fill(-1)
  sizes.fill(0)
  assignBalanced(v, width, ids, distances, sizes, capacity, assignment)
  // Read again, in ascending order, only for the rows whose remembered clusters were all full.
  placeLeftovers(centroids, assignment, sizes, capacity, (row) => ({
    rows: scaleSearchRows(config, source, row, 1),
    at: 0,
  }))

  // The published centroids: the means of the final clusters.
  sums.fill(0)
  for (let first = 0; first < v; first += step) {
    const count = Math.min(step, v - first)
    const block = scaleSearchRows(config, source, first, count)
    for (let i = 0; i < count; i++) {
      const c = assignment[first + i] as number
      for (let j = 0; j < d; j++) sums[c * d + j] = (sums[c * d + j] as number) + (block[i * d + j] as number)
    }
  }
  centroids.setMeans(sums, sizes)

  const members: number[][] = Array.from({ length: k }, () => [])
  for (let row = 0; row < v; row++) (members[assignment[row] as number] as number[]).push(row)
  const s = config.scale
  return {
    configId: config.configId,
    centroids: Array.from({ length: k }, (_, c) =>
      Array.from(centroids.values.subarray(c * d, (c + 1) * d), (x) => x / s),
    ),
    members,
  }
}
