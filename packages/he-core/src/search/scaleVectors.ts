import { HeError } from '../errors/HeError.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { SearchRowSource } from './SearchRowSource.ts'

/** Norms may exceed the bound by float noise (a normalised vector's norm is 1 ± 1e-16). */
const NORM_TOLERANCE = 1e-9

type ScaleFields = Pick<SearchConfig, 'dimension' | 'metric' | 'maxNorm' | 'scale'>

/**
 * Scales one vector into `out` at `offset`: normalised first for cosine, checked
 * against maxNorm for dot, then multiplied by s and rounded. With every vector
 * scaled this way, every score fits (−t/2, t/2) (see `maxSearchScale`).
 */
function scaleInto(
  config: ScaleFields,
  source: ArrayLike<number>,
  start: number,
  out: Int32Array,
  offset: number,
  what: () => string,
): void {
  const d = config.dimension
  let squares = 0
  for (let j = 0; j < d; j++) {
    const value = source[start + j] as number
    if (!Number.isFinite(value)) {
      throw new HeError('INVALID_INPUT', `${what()} component ${j} is ${value}, not a finite number`)
    }
    squares += value * value
  }
  const norm = Math.sqrt(squares)
  let factor = config.scale
  if (config.metric === 'cosine') {
    if (norm === 0) throw new HeError('INVALID_INPUT', `${what()} is the zero vector, which has no cosine similarity`)
    factor /= norm
  } else if (norm > config.maxNorm * (1 + NORM_TOLERANCE)) {
    throw new HeError(
      'VALUE_OUT_OF_RANGE',
      `${what()} has norm ${norm}, above maxNorm ${config.maxNorm}: its scores could overflow the plain modulus; raise maxNorm (s shrinks) or rescale the data`,
      { details: { norm, maxNorm: config.maxNorm } },
    )
  }
  for (let j = 0; j < d; j++) out[offset + j] = Math.round((source[start + j] as number) * factor)
}

/** The query scaled to integers (length D). */
export function scaleQueryVector(config: ScaleFields, vector: ArrayLike<number>): Int32Array {
  if (vector.length !== config.dimension) {
    throw new HeError(
      'INVALID_INPUT',
      `query has ${vector.length} components, the search config says D=${config.dimension}`,
    )
  }
  const out = new Int32Array(config.dimension)
  scaleInto(config, vector, 0, out, 0, () => 'query')
  return out
}

/** The whole database scaled to integers (V × D, row-major). */
export function scaleDatabaseVectors(
  config: ScaleFields & Pick<SearchConfig, 'rows'>,
  database: SearchDatabase,
): Int32Array {
  if (database.dimension !== config.dimension || database.rows !== config.rows) {
    throw new HeError(
      'INVALID_INPUT',
      `database is V=${database.rows} × D=${database.dimension}, the search config says V=${config.rows} × D=${config.dimension}`,
    )
  }
  const d = config.dimension
  const out = new Int32Array(database.rows * d)
  for (let row = 0; row < database.rows; row++) {
    scaleInto(config, database.vectors, row * d, out, row * d, () => `row ${row} (id ${String(database.ids[row])})`)
  }
  return out
}

/**
 * Rows [firstRow, firstRow + count) of a row source scaled to integers (count × D,
 * row-major): one block's worth, so a whole database is never scaled at once.
 */
export function scaleSearchRows(
  config: ScaleFields & Pick<SearchConfig, 'rows'>,
  source: SearchRowSource,
  firstRow: number,
  count: number,
): Int32Array {
  if (source.dimension !== config.dimension || source.rows !== config.rows) {
    throw new HeError(
      'INVALID_INPUT',
      `database is V=${source.rows} × D=${source.dimension}, the search config says V=${config.rows} × D=${config.dimension}`,
    )
  }
  const d = config.dimension
  const values = source.readRows(firstRow, count)
  if (values.length !== count * d) {
    throw new HeError(
      'INVALID_INPUT',
      `database rows ${firstRow}…${firstRow + count - 1} gave ${values.length} values, expected ${count} × ${d}`,
    )
  }
  const out = new Int32Array(count * d)
  for (let i = 0; i < count; i++) {
    const row = firstRow + i
    scaleInto(config, values, i * d, out, i * d, () => source.rowName?.(row) ?? `row ${row}`)
  }
  return out
}
