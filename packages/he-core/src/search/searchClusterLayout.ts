/*
 * The cluster-private layout (Tiptoe's, in batching slots).
 *
 * The database is cut into C clusters of at most m = ⌈V/C⌉ rows (balanced k-means). Virtual
 * row r is the concatenation, over the clusters c, of cluster c's r-th member (zeros past a
 * cluster's end): a vector of length C·D. The query is the same length, q in its cluster's
 * D positions and zeros everywhere else, so virtual row r scores exactly its cluster's r-th
 * member against q, and the response holds m scores whichever cluster the client chose.
 *
 * The C·D positions are cut into chunks of W = n/2 (one batching row): one query ciphertext
 * per chunk, laid out as `querySlots` lays out a query of dimension D' = W. Each chunk is a
 * W-column slab of the virtual matrix with its own generalized diagonals, and the BSGS sum
 * runs over every chunk inside each giant step:
 *   block = Σ_b rot_{g·b}( Σ_chunk Σ_a P[chunk][b][a] ⊙ rot_a(query_chunk) ),
 * so giant rotations are shared by the chunks and baby rotations by the blocks. A block's
 * plaintexts for giant step b are stored chunk-major (chunk·g + a), and the kernels' baby
 * set is the chunks' baby rotations in the same order: the inner sum is one inner product.
 */

import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { planBlocks, type SearchBlock, type SearchShape } from './searchLayout.ts'

/** The numbers of a cluster-private config. */
export const SearchClusterLayoutSchema = z
  .object({
    /** C: clusters. */
    clusters: z.number().int(),
    /** m = ⌈V/C⌉: the most rows a cluster holds (the balanced clustering caps every cluster at m). */
    rowsPerCluster: z.number().int(),
    /** W = n/2: query positions per query ciphertext. */
    chunkWidth: z.number().int(),
    /** ⌈C·D / W⌉: query ciphertexts (one per chunk). */
    chunks: z.number().int(),
  })
  .strict()
export type SearchClusterLayout = z.infer<typeof SearchClusterLayoutSchema>

/** The layout of C clusters of V rows of dimension D at n slots; INVALID_PARAMS when C does not fit. */
export function planClusterLayout(
  polyModulusDegree: number,
  rows: number,
  dimension: number,
  clusters: number,
): SearchClusterLayout {
  if (!Number.isInteger(clusters) || clusters < 2 || clusters > rows) {
    throw new HeError(
      'INVALID_PARAMS',
      `clusters: C=${clusters} must be an integer from 2 to V=${rows} (0 or leave it out for exact search over every row)`,
      { details: { field: 'clusters', limit: rows } },
    )
  }
  const chunkWidth = polyModulusDegree / 2
  return {
    clusters,
    rowsPerCluster: Math.ceil(rows / clusters),
    chunkWidth,
    chunks: Math.ceil((clusters * dimension) / chunkWidth),
  }
}

/** The shape of one chunk's matrix: m virtual rows, W columns (the layout functions' D = D' = W). */
export function clusterChunkShape(
  polyModulusDegree: number,
  layout: SearchClusterLayout,
  babyStep: number,
): SearchShape {
  return {
    polyModulusDegree,
    dimension: layout.chunkWidth,
    paddedDimension: layout.chunkWidth,
    rows: layout.rowsPerCluster,
    babyStep,
  }
}

/**
 * The blocks of a cluster-private config: those of one chunk's matrix, with `diagonals`
 * counting every chunk's (the plaintexts a block stores and multiplies).
 */
export function planClusterBlocks(shape: SearchShape, layout: SearchClusterLayout): SearchBlock[] {
  return planBlocks(shape).map((block) => ({ ...block, diagonals: block.diagonals * layout.chunks }))
}

/** Diagonals of one chunk in a block (W, or W/2 folded). */
export function chunkDiagonals(block: SearchBlock, layout: SearchClusterLayout): number {
  return block.diagonals / layout.chunks
}

/**
 * Chunk `chunk` of virtual rows [firstRow, firstRow + count): count × W values, row-major,
 * into `out`. `scaledRow(row)` gives a database row's scaled values (length D); `members`
 * lists each cluster's rows in virtual-row order.
 */
export function clusterChunkRows(
  layout: SearchClusterLayout,
  dimension: number,
  members: readonly (readonly number[])[],
  scaledRow: (row: number) => ArrayLike<number>,
  firstRow: number,
  count: number,
  chunk: number,
  out: Int32Array,
): Int32Array {
  const w = layout.chunkWidth
  out.fill(0)
  const start = chunk * w
  const end = Math.min(start + w, layout.clusters * dimension)
  for (let c = Math.floor(start / dimension); c * dimension < end; c++) {
    const list = members[c] ?? []
    const from = Math.max(start, c * dimension)
    const to = Math.min(end, (c + 1) * dimension)
    for (let i = 0; i < count; i++) {
      const row = list[firstRow + i]
      if (row === undefined) continue
      const values = scaledRow(row)
      for (let p = from; p < to; p++) out[i * w + (p - start)] = values[p - c * dimension] as number
    }
  }
  return out
}

/** The query's chunks: q (scaled, length D) at cluster c's positions, zeros elsewhere. */
export function clusterQueryChunks(
  layout: SearchClusterLayout,
  cluster: number,
  query: ArrayLike<number>,
): Int32Array[] {
  const w = layout.chunkWidth
  const chunks = Array.from({ length: layout.chunks }, () => new Int32Array(w))
  const offset = cluster * query.length
  for (let i = 0; i < query.length; i++) {
    const position = offset + i
    ;(chunks[Math.floor(position / w)] as Int32Array)[position % w] = query[i] as number
  }
  return chunks
}
