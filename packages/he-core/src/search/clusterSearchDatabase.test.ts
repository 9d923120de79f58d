import { describe, expect, it } from 'vitest'
import { clusterSearchDatabase, scaleWholeDatabase } from './clusterSearchDatabase.ts'
import { nearestClusters } from './SearchClustering.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { type SearchRowSource, searchRowSourceOf } from './SearchRowSource.ts'
import { scaleSearchRows } from './scaleVectors.ts'
import { syntheticSearchDatabase } from './syntheticSearchDatabase.ts'
import { topKIndices } from './topK.ts'

/** A database's rows as a source that records every read (first row, count). */
function recordingSource(database: SearchDatabase): SearchRowSource & { reads: [number, number][] } {
  const inner = searchRowSourceOf(database)
  const reads: [number, number][] = []
  return {
    rows: inner.rows,
    dimension: inner.dimension,
    reads,
    readRows(firstRow, count) {
      reads.push([firstRow, count])
      return inner.readRows(firstRow, count)
    },
  }
}

function checkBalanced(members: readonly (readonly number[])[], rows: number, clusters: number) {
  const sizes = members.map((list) => list.length)
  expect(Math.max(...sizes)).toBeLessThanOrEqual(Math.ceil(rows / clusters))
  expect(sizes.reduce((x, y) => x + y, 0)).toBe(rows)
  expect(new Set(members.flat()).size).toBe(rows)
}

describe('clusterSearchDatabase, trained on a sample and assigned streamed', () => {
  it('reads a block of rows at a time at most, forwards within each pass, and stays balanced', () => {
    const rows = 20_000
    const dimension = 16
    const database = syntheticSearchDatabase({ rows, dimension, seed: 21, topics: 40 })
    const config = resolveSearchConfig({ rows, dimension, clusters: 8 })
    const source = recordingSource(database)
    const clustering = clusterSearchDatabase(config, source, { sampleRows: 1024 })
    checkBalanced(clustering.members, rows, 8)
    // Never the whole database at once: a block (n rows) per read at most.
    expect(Math.max(...source.reads.map(([, count]) => count))).toBeLessThanOrEqual(config.polyModulusDegree)
    // Every pass reads forwards (a streamed source restarts only between passes): at most 4 passes.
    let restarts = 0
    for (let i = 1; i < source.reads.length; i++) {
      if ((source.reads[i] as [number, number])[0] < (source.reads[i - 1] as [number, number])[0]) restarts++
    }
    expect(restarts).toBeLessThanOrEqual(3)
    // The sample is a sample: far fewer single-row reads than rows.
    expect(source.reads.filter(([, count]) => count === 1).length).toBeLessThan(rows / 4)
    expect(clusterSearchDatabase(config, database, { sampleRows: 1024 })).toEqual(clustering)
  })

  it('keeps topics together: the nearest centroid holds the rows nearest the query', () => {
    const rows = 20_000
    const dimension = 32
    const topics = 48
    const database = syntheticSearchDatabase({ rows, dimension, seed: 31, topics })
    const queries = syntheticSearchDatabase({ rows: 20, dimension, seed: 32, topics, topicSeed: 31 })
    const config = resolveSearchConfig({ rows, dimension, clusters: 8 })
    const clustering = clusterSearchDatabase(config, database, { sampleRows: 4096 })
    const clusterOf = new Int32Array(rows)
    for (const [c, list] of clustering.members.entries()) for (const row of list) clusterOf[row] = c
    let found = 0
    for (let q = 0; q < queries.rows; q++) {
      const query = queries.vectors.subarray(q * dimension, (q + 1) * dimension)
      const dots = new Float64Array(rows)
      for (let row = 0; row < rows; row++) {
        let dot = 0
        for (let j = 0; j < dimension; j++)
          dot += (database.vectors[row * dimension + j] as number) * (query[j] as number)
        dots[row] = dot
      }
      const cluster = nearestClusters(clustering, 'cosine', query)[0]
      found += topKIndices(dots, 10).filter((row) => clusterOf[row] === cluster).length
    }
    expect(found / (10 * queries.rows)).toBeGreaterThanOrEqual(0.9)
  })

  it('places every row when most rows want the same clusters (more clusters than it remembers per row)', () => {
    // One topic: every row's 8 nearest of 20 clusters fill up, the rest go to the second pass.
    const rows = 4000
    const dimension = 8
    const database = syntheticSearchDatabase({ rows, dimension, seed: 41, topics: 1, spread: 0.2 })
    const config = resolveSearchConfig({ rows, dimension, clusters: 20 })
    const clustering = clusterSearchDatabase(config, database, { sampleRows: 1500 })
    checkBalanced(clustering.members, rows, 20)
    for (const centroid of clustering.centroids) expect(centroid.every(Number.isFinite)).toBe(true)
  })
})

describe('scaleWholeDatabase', () => {
  it('holds the scaled rows in the narrowest integers they fit, equal to scaleSearchRows', () => {
    const rows = 3000
    const dimension = 24
    const database = syntheticSearchDatabase({ rows, dimension, seed: 51 })
    const config = resolveSearchConfig({ rows, dimension, clusters: 4 })
    const whole = scaleWholeDatabase(config, searchRowSourceOf(database))
    expect(config.scale).toBeLessThanOrEqual(32767)
    expect(whole.BYTES_PER_ELEMENT).toBeLessThanOrEqual(2)
    expect(Array.from(whole)).toEqual(Array.from(scaleSearchRows(config, searchRowSourceOf(database), 0, rows)))
  })
})

describe('syntheticSearchDatabase subjects', () => {
  it('groups topics under subjects: rows of one subject are nearer each other than across subjects', () => {
    const dimension = 64
    const database = syntheticSearchDatabase({ rows: 400, dimension, seed: 61, topics: 40, subjects: 2 })
    expect(syntheticSearchDatabase({ rows: 400, dimension, seed: 61, topics: 40, subjects: 2 })).toEqual(database)
    // Without subjects the topics (and so the rows) are the ones of before.
    expect(syntheticSearchDatabase({ rows: 5, dimension, seed: 61, topics: 40 })).not.toEqual(
      syntheticSearchDatabase({ rows: 5, dimension, seed: 61, topics: 40, subjects: 2 }),
    )
    const row = (r: number) => database.vectors.subarray(r * dimension, (r + 1) * dimension)
    const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      let dot = 0
      for (let j = 0; j < dimension; j++) dot += (a[j] as number) * (b[j] as number)
      return dot
    }
    // Mean cosine over all pairs is well above 0 (every row leans on one of two subjects), unlike flat topics.
    const flat = syntheticSearchDatabase({ rows: 400, dimension, seed: 61, topics: 40 })
    const flatRow = (r: number) => flat.vectors.subarray(r * dimension, (r + 1) * dimension)
    let grouped = 0
    let independent = 0
    for (let a = 0; a < 100; a++) {
      for (let b = a + 1; b < 100; b++) {
        grouped += cosine(row(a), row(b))
        independent += cosine(flatRow(a), flatRow(b))
      }
    }
    expect(grouped / 4950).toBeGreaterThan(0.15)
    expect(Math.abs(independent / 4950)).toBeLessThan(0.1)
    expect(() => syntheticSearchDatabase({ rows: 10, dimension, subjects: 2 })).toThrow(/subjects/)
    expect(() => syntheticSearchDatabase({ rows: 10, dimension, topics: 4, subjects: 0 })).toThrow(/subjects/)
  })
})
