import { HeError } from '../errors/HeError.ts'
import { SEARCH_MAX_ROWS } from './SearchConfigInput.ts'
import { type SearchDatabase, type SearchRowId, validateSearchDatabase } from './SearchDatabase.ts'

/** Splits CSV text into records (RFC 4180: quoted fields, "" escapes, CRLF or LF). */
function csvRecords(text: string): { fields: string[]; line: number }[] {
  const records: { fields: string[]; line: number }[] = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let line = 1
  let recordLine = 1
  let i = 0
  const endRecord = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0] === '')) records.push({ fields, line: recordLine })
    fields = []
    field = ''
  }
  while (i < text.length) {
    const ch = text[i] as string
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        quoted = false
      } else {
        if (ch === '\n') line++
        field += ch
      }
      i++
      continue
    }
    if (ch === '"' && field === '') quoted = true
    else if (ch === ',') {
      fields.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      endRecord()
      if (ch === '\r' && text[i + 1] === '\n') i++
      line++
      recordLine = line
    } else field += ch
    i++
  }
  if (quoted) throw new HeError('INVALID_INPUT', `CSV line ${recordLine}: a quoted field is never closed`)
  if (field !== '' || fields.length > 0) endRecord()
  return records
}

function isNumeric(field: string): boolean {
  return field.trim() !== '' && Number.isFinite(Number(field))
}

/**
 * Parses CSV. With a header row (any non-numeric field in the first row), a column
 * named `id` gives the ids, a column named `metadata` gives metadata (JSON when it
 * parses, else the text), and every other column is a vector component. Without a
 * header every column is a component and the ids are the row numbers 0…V−1.
 */
export function parseSearchCsv(text: string): SearchDatabase {
  const records = csvRecords(text.startsWith('\uFEFF') ? text.slice(1) : text)
  const first = records[0]
  if (!first) throw new HeError('INVALID_INPUT', 'CSV database has no rows')
  const hasHeader = first.fields.some((field) => !isNumeric(field))
  const header = hasHeader ? first.fields.map((name) => name.trim().toLowerCase()) : undefined
  const idColumn = header ? header.indexOf('id') : -1
  const metadataColumn = header ? header.indexOf('metadata') : -1
  const width = first.fields.length
  const vectorColumns = Array.from({ length: width }, (_, c) => c).filter((c) => c !== idColumn && c !== metadataColumn)
  if (vectorColumns.length === 0) throw new HeError('INVALID_INPUT', 'CSV has no vector columns')
  const body = hasHeader ? records.slice(1) : records
  if (body.length === 0) throw new HeError('INVALID_INPUT', 'CSV database has a header but no rows')
  if (body.length > SEARCH_MAX_ROWS) throw new HeError('INVALID_INPUT', `CSV has more than ${SEARCH_MAX_ROWS} rows`)
  const dimension = vectorColumns.length
  const vectors = new Float64Array(body.length * dimension)
  const ids: SearchRowId[] = []
  const metadata: unknown[] = []
  for (const [row, record] of body.entries()) {
    if (record.fields.length !== width) {
      throw new HeError(
        'INVALID_INPUT',
        `CSV line ${record.line}: ${record.fields.length} fields, the first row has ${width}`,
        {
          details: { line: record.line },
        },
      )
    }
    for (const [j, column] of vectorColumns.entries()) {
      const field = record.fields[column] as string
      if (!isNumeric(field)) {
        throw new HeError(
          'INVALID_INPUT',
          `CSV line ${record.line}, column ${column + 1}: ${JSON.stringify(field)} is not a number`,
          { details: { line: record.line, column: column + 1 } },
        )
      }
      vectors[row * dimension + j] = Number(field)
    }
    ids.push(idColumn >= 0 ? (record.fields[idColumn] as string) : row)
    if (metadataColumn >= 0) metadata.push(parseMetadata(record.fields[metadataColumn] as string))
  }
  return validateSearchDatabase({
    dimension,
    rows: body.length,
    vectors,
    ids,
    ...(metadataColumn >= 0 ? { metadata } : {}),
  })
}

function parseMetadata(field: string): unknown {
  if (field === '') return undefined
  try {
    return JSON.parse(field)
  } catch {
    return field
  }
}
