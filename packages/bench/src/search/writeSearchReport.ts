import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import { renderSearchReport } from './renderSearchReport.ts'
import { renderThroughputSection, replaceSection, THROUGHPUT_HEADING } from './renderThroughputSection.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'

const MARKDOWN = 'search-benchmark.md'
const JSON_FILE = 'search-benchmark.json'

/** Writes a whole run's report to `outDir` as Markdown and JSON; returns the Markdown. */
export async function writeSearchReport(outDir: string, report: SearchBenchReport): Promise<string> {
  return writeStampedReport({
    markdownPath: join(outDir, MARKDOWN),
    jsonPath: join(outDir, JSON_FILE),
    markdown: renderSearchReport(report),
    json: report,
  })
}

/**
 * `--throughput-only`: the throughput section of the report in `outDir` is replaced (the
 * JSON's `throughput` too); every other section stays as its own run wrote it. Returns the section.
 */
export async function writeThroughputOnly(outDir: string, throughput: ThroughputReport): Promise<string> {
  const read = (name: string) => readFile(join(outDir, name), 'utf8').catch(() => undefined)
  const [markdown, json] = await Promise.all([read(MARKDOWN), read(JSON_FILE)])
  const section = renderThroughputSection(throughput)
  const merged = replaceSection(markdown ?? '# Private search benchmark\n', THROUGHPUT_HEADING, section)
  const report = { ...(json ? (JSON.parse(json) as object) : {}), throughput }
  await mkdir(outDir, { recursive: true })
  await writeFile(join(outDir, MARKDOWN), merged)
  await writeFile(join(outDir, JSON_FILE), `${JSON.stringify(report, null, 1)}\n`)
  return section
}
