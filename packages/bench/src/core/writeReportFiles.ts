import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { type SourceRevision, sourceRevision, stampJson, stampMarkdown } from './sourceRevision.ts'

/** The three renderings of one report. */
export interface ReportFiles {
  markdown: string
  json: unknown
  html: string
}

/** Where one report's Markdown and JSON go, and what they hold. */
export interface StampedReport {
  markdownPath: string
  jsonPath: string
  markdown: string
  json: unknown
  /** Defaults to this checkout's, now. */
  revision?: SourceRevision
}

/**
 * Writes a report's Markdown and JSON, each recording the commit it was measured at and
 * whether the tree was dirty (`revision`), so a figure quoted from it can name its source.
 * Returns the Markdown as written.
 */
export async function writeStampedReport(report: StampedReport): Promise<string> {
  const revision = report.revision ?? sourceRevision()
  const markdown = stampMarkdown(report.markdown, revision)
  await mkdir(dirname(report.markdownPath), { recursive: true })
  await mkdir(dirname(report.jsonPath), { recursive: true })
  await writeFile(report.markdownPath, markdown)
  await writeFile(report.jsonPath, `${JSON.stringify(stampJson(report.json, revision), null, 1)}\n`)
  return markdown
}

/** Writes `<base>.md`, `<base>.json` (both stamped with the commit) and `<base>.html` into `dir`. */
export async function writeReportFiles(
  dir: string,
  base: string,
  files: ReportFiles,
): Promise<{ markdown: string; json: string; html: string }> {
  const paths = { markdown: join(dir, `${base}.md`), json: join(dir, `${base}.json`), html: join(dir, `${base}.html`) }
  await writeStampedReport({
    markdownPath: paths.markdown,
    jsonPath: paths.json,
    markdown: files.markdown,
    json: files.json,
  })
  await writeFile(paths.html, files.html)
  return paths
}
