import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SourceRevision } from '../core/sourceRevision.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import type { MillionRowsResult } from './measureMillionRows.ts'
import { renderMillionRows } from './renderMillionRows.ts'

/*
 * Renders search-million.md again from search-million.json (what `--million` measured), for
 * a change of the table's wording without a run of an hour:
 *   node --conditions=@sealbox/source packages/bench/src/search/renderMillionReport.ts
 */

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'results', 'search')
const json = JSON.parse(await readFile(join(dir, 'search-million.json'), 'utf8')) as {
  command: string
  date: string
  results: MillionRowsResult[]
  /** The commit that measured: kept, so the figures still name their source. */
  revision?: SourceRevision
}
await writeStampedReport({
  markdownPath: join(dir, 'search-million.md'),
  jsonPath: join(dir, 'search-million.json'),
  markdown: renderMillionRows(json),
  json: { command: json.command, date: json.date, results: json.results },
  ...(json.revision ? { revision: json.revision } : {}),
})
