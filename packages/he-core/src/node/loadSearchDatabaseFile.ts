import { readFile } from 'node:fs/promises'
import { HeError } from '../errors/HeError.ts'
import {
  parseSearchDatabase,
  type SearchDatabaseFormat,
  searchDatabaseFormatOf,
} from '../search/parseSearchDatabase.ts'
import type { SearchDatabase } from '../search/SearchDatabase.ts'

/**
 * Reads a search database file (.jsonl/.ndjson, .csv, .npy) and parses it with the
 * browser-safe parsers. The format comes from the extension unless given.
 */
export async function loadSearchDatabaseFile(path: string, format?: SearchDatabaseFormat): Promise<SearchDatabase> {
  const chosen = format ?? searchDatabaseFormatOf(path)
  if (chosen === undefined) {
    throw new HeError(
      'INVALID_INPUT',
      `${path}: cannot tell the database format; use .jsonl, .csv or .npy (or pass it)`,
    )
  }
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (error) {
    throw new HeError('INVALID_INPUT', `${path} cannot be read: ${(error as Error).message}`, { cause: error })
  }
  return parseSearchDatabase(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), chosen)
}
