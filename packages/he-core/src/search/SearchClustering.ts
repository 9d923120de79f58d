import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { SearchConfig } from './SearchConfig.ts'

/**
 * The public half of a cluster-private database, as public as its catalog: the centroids
 * the client picks its cluster from, and each cluster's rows in the order the response
 * scores them (cluster c's r-th member is virtual row r). The server sends it with the
 * search config; it says nothing about any query.
 */
export const SearchClusteringSchema = z
  .object({
    /** 32 hex chars: the search config it was made for. */
    configId: z.string(),
    /** C × D centroids in the vectors' own space (cosine: of the normalised vectors). */
    centroids: z.array(z.array(z.number())),
    /** Per cluster, its database rows (0-based, global) in virtual-row order; every row exactly once. */
    members: z.array(z.array(z.number().int().min(0))),
  })
  .strict()
export type SearchClustering = z.infer<typeof SearchClusteringSchema>

/**
 * Checks a clustering against its config: C centroids of length D, every cluster at most
 * m rows, every row of the database in exactly one cluster. INVALID_INPUT otherwise.
 */
export function checkSearchClustering(config: SearchConfig, input: unknown): SearchClustering {
  const layout = config.clusters
  if (!layout) throw new HeError('INVALID_INPUT', `search config ${config.configId} is exact: it takes no clustering`)
  const parsed = SearchClusteringSchema.safeParse(input)
  if (!parsed.success) {
    throw new HeError('INVALID_INPUT', `search clustering: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      cause: parsed.error,
    })
  }
  const clustering = parsed.data
  const bad = (message: string) => new HeError('INVALID_INPUT', `search clustering: ${message}`)
  if (clustering.configId !== config.configId) {
    throw bad(`made for config ${clustering.configId}, this config is ${config.configId}`)
  }
  if (clustering.centroids.length !== layout.clusters || clustering.members.length !== layout.clusters) {
    throw bad(
      `${clustering.centroids.length} centroids and ${clustering.members.length} member lists, expected C=${layout.clusters}`,
    )
  }
  if (
    clustering.centroids.some((centroid) => centroid.length !== config.dimension || !centroid.every(Number.isFinite))
  ) {
    throw bad(`every centroid must have D=${config.dimension} finite components`)
  }
  const seen = new Uint8Array(config.rows)
  let count = 0
  for (const [c, list] of clustering.members.entries()) {
    if (list.length > layout.rowsPerCluster) {
      throw bad(`cluster ${c} has ${list.length} rows, more than m=${layout.rowsPerCluster}`)
    }
    for (const row of list) {
      if (row >= config.rows || seen[row]) throw bad(`row ${row} is out of range or in two clusters`)
      seen[row] = 1
      count++
    }
  }
  if (count !== config.rows) throw bad(`${count} rows in clusters, the database has V=${config.rows}`)
  return clustering
}

/**
 * The `count` clusters nearest to a vector, nearest first: the least ‖x − c‖² (the
 * vector normalised first under the cosine metric, as the clustering saw the rows). The
 * client runs this locally on the public centroids: the server never sees the answer.
 */
export function nearestClusters(
  clustering: Pick<SearchClustering, 'centroids'>,
  metric: SearchConfig['metric'],
  vector: ArrayLike<number>,
  count = 1,
): number[] {
  let norm = 1
  if (metric === 'cosine') {
    let squares = 0
    for (let j = 0; j < vector.length; j++) squares += (vector[j] as number) ** 2
    norm = Math.sqrt(squares) || 1
  }
  // ‖x − c‖² = ‖x‖² − 2 x·c + ‖c‖²; ‖x‖² is the same for every c.
  const distances = clustering.centroids.map((centroid, c) => {
    let dot = 0
    let squares = 0
    for (let j = 0; j < centroid.length; j++) {
      const value = centroid[j] as number
      dot += ((vector[j] as number) / norm) * value
      squares += value * value
    }
    return { c, distance: squares - 2 * dot }
  })
  distances.sort((x, y) => x.distance - y.distance || x.c - y.c)
  return distances.slice(0, count).map(({ c }) => c)
}
