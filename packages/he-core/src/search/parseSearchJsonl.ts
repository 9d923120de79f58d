import { HeError } from '../errors/HeError.ts'
import { SEARCH_MAX_ROWS } from './SearchConfigInput.ts'
import { type SearchDatabase, type SearchRowId, validateSearchDatabase } from './SearchDatabase.ts'

function lineError(line: number, message: string): HeError {
  return new HeError('INVALID_INPUT', `JSONL line ${line}: ${message}`, { details: { line } })
}

/**
 * Parses JSON Lines: one `{"id": string | number, "vector": number[], "metadata"?: any}`
 * per line (blank lines skipped). Every vector must have the first line's dimension.
 */
export function parseSearchJsonl(text: string): SearchDatabase {
  const ids: SearchRowId[] = []
  const metadata: unknown[] = []
  let hasMetadata = false
  let dimension = 0
  let values: number[] = []
  const lines = text.split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const line = index + 1
    if (raw.trim() === '') continue
    let record: unknown
    try {
      record = JSON.parse(raw)
    } catch (error) {
      throw new HeError('INVALID_INPUT', `JSONL line ${line} is not valid JSON`, { cause: error, details: { line } })
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw lineError(line, 'expected an object {"id", "vector", "metadata"?}')
    }
    const { id, vector } = record as { id?: unknown; vector?: unknown }
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
      throw lineError(line, '"id" must be a string or a number')
    }
    if (!Array.isArray(vector) || vector.length === 0) throw lineError(line, '"vector" must be a non-empty array')
    if (dimension === 0) dimension = vector.length
    if (vector.length !== dimension) {
      throw lineError(line, `"vector" has ${vector.length} components, earlier rows have ${dimension}`)
    }
    for (const [j, value] of vector.entries()) {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw lineError(line, `"vector"[${j}] is ${JSON.stringify(value)}, not a finite number`)
      }
      values.push(value)
    }
    ids.push(id)
    const meta = (record as { metadata?: unknown }).metadata
    if (meta !== undefined) hasMetadata = true
    metadata.push(meta)
    if (ids.length > SEARCH_MAX_ROWS) throw lineError(line, `more than ${SEARCH_MAX_ROWS} rows`)
  }
  if (ids.length === 0) throw new HeError('INVALID_INPUT', 'JSONL database has no rows')
  const vectors = Float64Array.from(values)
  values = []
  return validateSearchDatabase({
    dimension,
    rows: ids.length,
    vectors,
    ids,
    ...(hasMetadata ? { metadata } : {}),
  })
}
