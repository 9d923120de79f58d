import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SearchLinkName } from '@sealbox/he-core/search'
import { type SourceRevision, sourceRevision } from '../core/sourceRevision.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import {
  type MillionRowsCase,
  type MillionRowsResult,
  type MillionRowsSource,
  measureMillionRows,
} from './measureMillionRows.ts'
import { mergeMillionRows } from './mergeMillionRows.ts'
import { renderMillionRows } from './renderMillionRows.ts'

/** What search-million.json holds (a report written before rows kept their source has none on them). */
interface MillionReportJson {
  command: string
  date: string
  results: MillionRowsResult[]
  revision?: SourceRevision
}

async function readReport(path: string): Promise<MillionReportJson | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as MillionReportJson
  } catch {
    return undefined
  }
}

/**
 * `--million`: every case at every V (largest last, so a long run keeps the small rows if it
 * stops), written to search-million.md and .json after each case. Rows of the report already
 * there for a case and V this run does not measure are kept with their own source (the
 * cluster-private row of another run stays beside this run's exact rows).
 */
export async function runMillionBench(options: {
  rows: readonly number[]
  cases: readonly MillionRowsCase['name'][]
  queries: number
  outDir: string
  command: string
  log: (line: string) => void
  /** Cluster-private data: the V/100 topics grouped under this many subjects at each V (0: independent topics). */
  subjectsOf: (rows: number) => number
  /** Shaped links to measure end to end over after the queries (absent: none). */
  links?: { names: readonly SearchLinkName[]; samples: number; cacheDir: string }
}): Promise<string> {
  const { outDir, command, log } = options
  const markdownPath = join(outDir, 'search-million.md')
  const jsonPath = join(outDir, 'search-million.json')
  const before = await readReport(jsonPath)
  const keptSource: MillionRowsSource | undefined = before && {
    command: before.command,
    date: before.date,
    ...(before.revision ? { commit: before.revision.commit, dirty: before.revision.dirty } : {}),
  }
  const revision = sourceRevision()
  const date = new Date().toISOString()
  const source: MillionRowsSource = { command, date, commit: revision.commit, dirty: revision.dirty }
  const write = async (measured: readonly MillionRowsResult[]) => {
    const results = mergeMillionRows(
      before?.results ?? [],
      measured.map((result) => ({ ...result, source })),
      keptSource,
    )
    const report = { command, date, results }
    const markdown = await writeStampedReport({
      markdownPath,
      jsonPath,
      markdown: renderMillionRows(report),
      json: report,
      revision,
    })
    log(`wrote ${markdownPath} and .json (${measured.length} cases measured, ${results.length} rows)`)
    return markdown
  }
  const cases = [...options.rows]
    .sort((a, b) => a - b)
    .flatMap((rows) =>
      options.cases.map((name) => {
        const subjects = options.subjectsOf(rows)
        return { name, rows, dimension: 384, workers: 2, ...(subjects > 0 ? { subjects } : {}) }
      }),
    )
  const results = await measureMillionRows(cases, {
    queries: options.queries,
    log,
    onCase: async (so) => void (await write(so)),
    ...(options.links ? { links: options.links } : {}),
  })
  return write(results)
}
