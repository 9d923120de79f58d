import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadAverage } from '../../core/machineInfo.ts'
import { writeStampedReport } from '../../core/writeReportFiles.ts'
import { measureSentenceSearch, type SentenceSearchRow } from './measureSentenceSearch.ts'
import { prepareSentenceEmbeddings } from './prepareSentenceEmbeddings.ts'
import { renderSentenceSearch, type SentenceSearchReport } from './renderSentenceSearch.ts'

const PACKAGE_DIR = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * `--sentences`: embeds the corpus (cached under `cacheDir/sentences`), then measures
 * recall@10 through a real server at each SEARCH_CLUSTERS setting, written to
 * search-sentences.md and .json after each setting. Returns the markdown.
 */
export async function runSentenceBench(options: {
  settings: readonly (number | 'auto')[]
  queries: number
  workers: number
  cacheDir: string
  outDir: string
  command: string
  log: (line: string) => void
}): Promise<string> {
  const before = loadAverage()
  const embeddings = await prepareSentenceEmbeddings({
    cacheDir: join(options.cacheDir, 'sentences'),
    queries: options.queries,
    log: options.log,
  })
  options.log(
    `sentences: ${embeddings.rows} database rows, ${embeddings.queries} held-out queries (${embeddings.corpus.requirement})`,
  )
  const markdownPath = join(options.outDir, 'search-sentences.md')
  const jsonPath = join(options.outDir, 'search-sentences.json')
  const date = new Date().toISOString()
  let markdown = ''
  const write = async (rows: readonly SentenceSearchRow[]) => {
    const report: SentenceSearchReport = {
      command: options.command,
      date,
      loadAverage: { before, after: loadAverage() },
      workers: options.workers,
      // Paths relative to the bench package: the report names the cache files, not this checkout's location.
      embeddings: {
        ...embeddings,
        databasePath: relative(PACKAGE_DIR, embeddings.databasePath),
        queriesPath: relative(PACKAGE_DIR, embeddings.queriesPath),
        sentencesPath: relative(PACKAGE_DIR, embeddings.sentencesPath),
      },
      rows: [...rows],
    }
    markdown = await writeStampedReport({
      markdownPath,
      jsonPath,
      markdown: renderSentenceSearch(report),
      json: report,
    })
    options.log(`wrote ${markdownPath} and .json (${rows.length} settings)`)
  }
  await measureSentenceSearch({
    embeddings,
    settings: options.settings,
    workers: options.workers,
    log: options.log,
    onRow: write,
  })
  return markdown
}
