import { HeError } from '../errors/HeError.ts'

/** A row id as given in the source (JSONL/CSV id) or the row index. */
export type SearchRowId = string | number

/**
 * A plaintext database of V vectors of dimension D, row-major. Plain data (no SEAL
 * objects): it can be posted to a worker, and `vectors` can be transferred.
 */
export interface SearchDatabase {
  dimension: number
  rows: number
  /** V × D values, row-major. */
  vectors: Float64Array
  /** One id per row. */
  ids: SearchRowId[]
  /** Optional metadata per row (undefined where a row has none). */
  metadata?: unknown[]
}

/** What the client needs to turn row numbers into results: ids and metadata (public, no vectors). */
export interface SearchCatalog {
  ids: readonly SearchRowId[]
  metadata?: readonly unknown[]
}

/** The catalog (ids, metadata) of a database. */
export function catalogOf(database: SearchDatabase): SearchCatalog {
  return database.metadata === undefined ? { ids: database.ids } : { ids: database.ids, metadata: database.metadata }
}

/**
 * Checks shape and values: V × D finite numbers, one id per row, unique ids.
 * Loaders call it; call it yourself on a hand-built database.
 */
export function validateSearchDatabase(database: SearchDatabase): SearchDatabase {
  const { dimension, rows, vectors, ids } = database
  if (!Number.isInteger(dimension) || dimension < 1) {
    throw new HeError('INVALID_INPUT', `database dimension must be a positive integer, got ${dimension}`)
  }
  if (!Number.isInteger(rows) || rows < 1) throw new HeError('INVALID_INPUT', 'database has no rows')
  if (vectors.length !== rows * dimension) {
    throw new HeError(
      'INVALID_INPUT',
      `database holds ${vectors.length} values, expected V × D = ${rows} × ${dimension} = ${rows * dimension}`,
    )
  }
  if (ids.length !== rows) throw new HeError('INVALID_INPUT', `database has ${ids.length} ids for ${rows} rows`)
  if (database.metadata !== undefined && database.metadata.length !== rows) {
    throw new HeError('INVALID_INPUT', `database has ${database.metadata.length} metadata entries for ${rows} rows`)
  }
  for (let i = 0; i < vectors.length; i++) {
    if (!Number.isFinite(vectors[i])) {
      const row = Math.floor(i / dimension)
      throw new HeError(
        'INVALID_INPUT',
        `row ${row} (id ${String(ids[row])}) component ${i % dimension} is ${vectors[i]}, not a finite number`,
        { details: { row, component: i % dimension } },
      )
    }
  }
  const seen = new Set<SearchRowId>()
  for (const [row, id] of ids.entries()) {
    if (seen.has(id)) {
      throw new HeError('INVALID_INPUT', `row ${row} repeats id ${JSON.stringify(id)}; ids must be unique`, {
        details: { row },
      })
    }
    seen.add(id)
  }
  return database
}
