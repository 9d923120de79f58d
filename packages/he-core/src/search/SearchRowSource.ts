import type { SearchDatabase } from './SearchDatabase.ts'

/**
 * Database rows read on demand, a block of rows at a time: processing reads each
 * block's rows, encodes them and lets them go, so no process holds the raw file and
 * the processed database at once (a server reads a .npy file in place this way).
 * A `SearchDatabase` in memory is one too (`searchRowSourceOf`).
 */
export interface SearchRowSource {
  readonly rows: number
  readonly dimension: number
  /** Rows [firstRow, firstRow + count), row-major: count × D values. */
  readRows(firstRow: number, count: number): ArrayLike<number>
  /** How an error message names a row (default `row <n>`). */
  rowName?(row: number): string
}

/** True for a row source, false for a database held in memory. */
export function isSearchRowSource(input: SearchDatabase | SearchRowSource): input is SearchRowSource {
  return typeof (input as SearchRowSource).readRows === 'function'
}

/** The rows of a database held in memory, as a row source (views, no copy). */
export function searchRowSourceOf(database: SearchDatabase): SearchRowSource {
  const { rows, dimension, vectors, ids } = database
  return {
    rows,
    dimension,
    readRows: (firstRow, count) => vectors.subarray(firstRow * dimension, (firstRow + count) * dimension),
    rowName: (row) => `row ${row} (id ${String(ids[row])})`,
  }
}
