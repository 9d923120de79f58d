import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { NPY_MAX_HEADER_BYTES, readNpyLayout, type SearchDatabaseFormat } from '@sealbox/he-core/search'

/** Text databases are parsed whole in memory (a string): above this, save the vectors as .npy. */
export const TEXT_DATABASE_MAX_BYTES = 512 * 2 ** 20

/** What a database file's first bytes (or one pass over a text file) say, before anything loads it. */
export interface SearchDatabaseShape {
  rows: number
  dimension: number
  /** The file's size in bytes. */
  bytes: number
}

function refuse(path: string, message: string, cause?: unknown): HeError {
  return new HeError('INVALID_INPUT', `DATABASE ${basename(path)} is refused: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { refused: 'database' },
  })
}

async function npyShape(path: string, size: number): Promise<SearchDatabaseShape> {
  const file = await open(path, 'r')
  try {
    const head = new Uint8Array(Math.min(size, NPY_MAX_HEADER_BYTES))
    await file.read(head, 0, head.byteLength, 0)
    let layout: ReturnType<typeof readNpyLayout>
    try {
      layout = readNpyLayout(head)
    } catch (error) {
      throw refuse(path, (error as Error).message, error)
    }
    if (size < layout.totalBytes) {
      throw refuse(
        path,
        `.npy: truncated: shape (${layout.rows}, ${layout.dimension}) needs ${layout.totalBytes} bytes, the file has ${size}`,
      )
    }
    return { rows: layout.rows, dimension: layout.dimension, bytes: size }
  } finally {
    await file.close()
  }
}

/**
 * Counts the records of a CSV or JSONL file in one streamed pass (bounded memory) and
 * reads the dimension from its first record. CSV records end at a newline outside
 * quotes (RFC 4180); blank lines are skipped, as the parsers skip them.
 */
async function textShape(path: string, format: 'csv' | 'jsonl', size: number): Promise<SearchDatabaseShape> {
  let records = 0
  let quoted = false
  let blank = true
  let first = ''
  let firstDone = false
  const endRecord = () => {
    if (!blank) records++
    if (!blank && !firstDone) firstDone = true
    blank = true
  }
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number
      if (byte === 0x22 && format === 'csv') quoted = !quoted
      if (byte === 0x0a && !quoted) {
        if (!firstDone) first += chunk.toString('utf8', start, i)
        endRecord()
        start = i + 1
      } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) {
        blank = false
      }
    }
    if (!firstDone) first += chunk.toString('utf8', start)
  }
  endRecord()
  first = first.replace(/^\uFEFF/, '').trim()
  if (records === 0) throw refuse(path, 'the file has no rows')
  if (format === 'jsonl') {
    let vector: unknown
    try {
      vector = (JSON.parse(first) as { vector?: unknown } | null)?.vector
    } catch (error) {
      throw refuse(path, 'JSONL line 1 is not valid JSON', error)
    }
    if (!Array.isArray(vector) || vector.length === 0)
      throw refuse(path, 'JSONL line 1: "vector" must be a non-empty array')
    return { rows: records, dimension: vector.length, bytes: size }
  }
  // The CSV parser's rule: a header is a first record with a non-numeric field.
  const fields = first.split(',').map((field) => field.trim())
  const header = fields.some((field) => field === '' || !Number.isFinite(Number(field)))
  const named = header ? fields.filter((field) => ['id', 'metadata'].includes(field.toLowerCase())).length : 0
  return { rows: header ? records - 1 : records, dimension: fields.length - named, bytes: size }
}

/**
 * The rows and dimension of a database file, read without loading it: a .npy file's
 * header (and its size, so a truncated file is refused too), or one streamed pass over a
 * CSV/JSONL file. Refuses text files above `TEXT_DATABASE_MAX_BYTES` (they are parsed whole).
 */
export async function readSearchDatabaseShape(
  path: string,
  format: SearchDatabaseFormat,
): Promise<SearchDatabaseShape> {
  let size: number
  try {
    const file = await open(path, 'r')
    size = (await file.stat()).size
    await file.close()
  } catch (error) {
    throw refuse(path, `cannot be read: ${(error as Error).message}`, error)
  }
  switch (format) {
    case 'npy':
      return npyShape(path, size)
    case 'csv':
    case 'jsonl':
      if (size > TEXT_DATABASE_MAX_BYTES) {
        throw refuse(
          path,
          `${(size / 2 ** 20).toFixed(0)} MiB of ${format.toUpperCase()} is above the ${TEXT_DATABASE_MAX_BYTES / 2 ** 20} MiB a text database may have (it is parsed whole in memory); save the vectors as a float32 .npy file, which is read in place block by block`,
        )
      }
      return textShape(path, format, size)
    default: {
      const never: never = format
      throw refuse(path, `unknown format ${String(never)}`)
    }
  }
}
