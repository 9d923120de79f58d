import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The three renderings of one report. */
export interface ReportFiles {
  markdown: string
  json: unknown
  html: string
}

/** Writes `<base>.md`, `<base>.json` and `<base>.html` into `dir` and returns their paths. */
export async function writeReportFiles(
  dir: string,
  base: string,
  files: ReportFiles,
): Promise<{ markdown: string; json: string; html: string }> {
  await mkdir(dir, { recursive: true })
  const paths = { markdown: join(dir, `${base}.md`), json: join(dir, `${base}.json`), html: join(dir, `${base}.html`) }
  await writeFile(paths.markdown, files.markdown)
  await writeFile(paths.json, `${JSON.stringify(files.json, null, 1)}\n`)
  await writeFile(paths.html, files.html)
  return paths
}
