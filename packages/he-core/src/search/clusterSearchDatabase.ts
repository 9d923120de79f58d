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
  /** Lloyd iterations at most (default 10); it stops earlier when no row moves. */
  iterations?: number
  /** Rows the k-means++ start samples from (default 64 per cluster). */
  sampleRows?: number
}

/** The scaled database (V × D, row-major), read one block of rows at a time. */
export function scaleWholeDatabase(config: SearchConfig, source: SearchRowSource): Int32Array {
  const d = config.dimension
  const out = new Int32Array(config.rows * d)
  const step = config.polyModulusDegree
  for (let first = 0; first < config.rows; first += step) {
    const count = Math.min(step, config.rows - first)
    out.set(scaleSearchRows(config, source, first, count), first * d)
  }
  return out
}

/**
 * Balanced k-means over the scaled rows: C clusters of at most m = ⌈V/C⌉ rows each
 * (`config.clusters`), seeded k-means++ start, then Lloyd iterations whose assignment
 * step is capacity-constrained: rows go in order of regret (how much farther their
 * second-nearest centroid is), each to its nearest cluster with room. Deterministic: the
 * same rows, config and seed give the same clustering in Node and in browsers.
 * `scaled` (from `scaleWholeDatabase`) may be passed to avoid reading the rows again.
 */
export function clusterSearchDatabase(
  config: SearchConfig,
  database: SearchDatabase | SearchRowSource,
  options: ClusterSearchDatabaseOptions & { scaled?: Int32Array } = {},
): SearchClustering {
  const layout = config.clusters
  if (!layout) throw new HeError('INVALID_INPUT', `search config ${config.configId} is exact: it has no clusters`)
  const source = isSearchRowSource(database) ? database : searchRowSourceOf(database)
  const scaled = options.scaled ?? scaleWholeDatabase(config, source)
  const v = config.rows
  const d = config.dimension
  const k = layout.clusters
  const capacity = layout.rowsPerCluster
  const random = mulberry32(options.seed ?? 1)
  const centroids = new Float64Array(k * d)
  const norms = new Float64Array(k)
  const distanceTo = (row: number, c: number): number => {
    let dot = 0
    const at = row * d
    const ct = c * d
    for (let j = 0; j < d; j++) dot += (scaled[at + j] as number) * (centroids[ct + j] as number)
    return (norms[c] as number) - 2 * dot
  }
  const setCentroidToRow = (c: number, row: number) => {
    let squares = 0
    for (let j = 0; j < d; j++) {
      const value = scaled[row * d + j] as number
      centroids[c * d + j] = value
      squares += value * value
    }
    norms[c] = squares
  }
  // k-means++ on a sample: each next centre drawn with probability ∝ its squared distance.
  const sampleSize = Math.min(v, options.sampleRows ?? 64 * k)
  const sample = Array.from({ length: sampleSize }, (_, i) => Math.floor((i * v) / sampleSize))
  setCentroidToRow(0, sample[Math.floor(random() * sampleSize)] as number)
  const nearest = new Float64Array(sampleSize).fill(Number.POSITIVE_INFINITY)
  for (let c = 1; c < k; c++) {
    let total = 0
    for (let i = 0; i < sampleSize; i++) {
      const row = sample[i] as number
      let rowSquares = 0
      for (let j = 0; j < d; j++) rowSquares += (scaled[row * d + j] as number) ** 2
      const distance = Math.max(0, rowSquares + distanceTo(row, c - 1))
      if (distance < (nearest[i] as number)) nearest[i] = distance
      total += nearest[i] as number
    }
    let target = random() * total
    let pick = sample[sampleSize - 1] as number
    for (let i = 0; i < sampleSize; i++) {
      target -= nearest[i] as number
      if (target <= 0) {
        pick = sample[i] as number
        break
      }
    }
    setCentroidToRow(c, pick)
  }
  const assignment = new Int32Array(v).fill(-1)
  const distances = new Float64Array(v * k)
  const order = new Int32Array(v)
  const regret = new Float64Array(v)
  const sizes = new Int32Array(k)
  const iterations = options.iterations ?? 10
  for (let iteration = 0; iteration < iterations; iteration++) {
    for (let row = 0; row < v; row++) {
      let best = Number.POSITIVE_INFINITY
      let second = Number.POSITIVE_INFINITY
      for (let c = 0; c < k; c++) {
        const distance = distanceTo(row, c)
        distances[row * k + c] = distance
        if (distance < best) {
          second = best
          best = distance
        } else if (distance < second) second = distance
      }
      regret[row] = second - best
      order[row] = row
    }
    // Rows that lose most by not getting their nearest cluster choose first.
    order.sort((a, b) => (regret[b] as number) - (regret[a] as number) || a - b)
    sizes.fill(0)
    let moved = 0
    for (const row of order) {
      let choice = -1
      let best = Number.POSITIVE_INFINITY
      for (let c = 0; c < k; c++) {
        const distance = distances[row * k + c] as number
        if ((sizes[c] as number) < capacity && distance < best) {
          best = distance
          choice = c
        }
      }
      sizes[choice] = (sizes[choice] as number) + 1
      if (assignment[row] !== choice) moved++
      assignment[row] = choice
    }
    // Means of the clusters (a balanced cluster is never empty: C ≤ V and m·C ≥ V).
    centroids.fill(0)
    for (let row = 0; row < v; row++) {
      const c = assignment[row] as number
      for (let j = 0; j < d; j++)
        centroids[c * d + j] = (centroids[c * d + j] as number) + (scaled[row * d + j] as number)
    }
    for (let c = 0; c < k; c++) {
      let squares = 0
      for (let j = 0; j < d; j++) {
        const value = (centroids[c * d + j] as number) / Math.max(1, sizes[c] as number)
        centroids[c * d + j] = value
        squares += value * value
      }
      norms[c] = squares
    }
    if (moved === 0) break
  }
  const members: number[][] = Array.from({ length: k }, () => [])
  for (let row = 0; row < v; row++) (members[assignment[row] as number] as number[]).push(row)
  const s = config.scale
  return {
    configId: config.configId,
    centroids: Array.from({ length: k }, (_, c) => Array.from(centroids.subarray(c * d, (c + 1) * d), (x) => x / s)),
    members,
  }
}
