import { HeError } from '../errors/HeError.ts'
import { parseNpy } from './parseNpy.ts'
import { parseSearchCsv } from './parseSearchCsv.ts'
import { parseSearchJsonl } from './parseSearchJsonl.ts'
import type { SearchDatabase } from './SearchDatabase.ts'

/** Database file formats. */
export const SEARCH_DATABASE_FORMATS = ['jsonl', 'csv', 'npy'] as const
export type SearchDatabaseFormat = (typeof SEARCH_DATABASE_FORMATS)[number]

/** The format a file name's extension names (`.jsonl`/`.ndjson`, `.csv`, `.npy`), or undefined. */
export function searchDatabaseFormatOf(fileName: string): SearchDatabaseFormat | undefined {
  const lower = fileName.toLowerCase()
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl'
  if (lower.endsWith('.csv')) return 'csv'
  if (lower.endsWith('.npy')) return 'npy'
  return undefined
}

/**
 * Parses a database from the bytes of a file (browser-safe: no file system). Text
 * formats must be UTF-8.
 */
export function parseSearchDatabase(bytes: Uint8Array, format: SearchDatabaseFormat): SearchDatabase {
  switch (format) {
    case 'npy':
      return parseNpy(bytes)
    case 'jsonl':
    case 'csv': {
      let text: string
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch (error) {
        throw new HeError('INVALID_INPUT', `${format.toUpperCase()} database is not valid UTF-8`, { cause: error })
      }
      return format === 'jsonl' ? parseSearchJsonl(text) : parseSearchCsv(text)
    }
    default: {
      const never: never = format
      throw new HeError('INVALID_INPUT', `unknown database format ${JSON.stringify(never)}`)
    }
  }
}
