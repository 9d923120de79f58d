/**
 * Re-renders operations.md and operations.html from an operations.json (after a change
 * to the report code, without re-running the benchmark):
 *   node --conditions=@sealbox/source src/cli/renderOpTable.ts results/operations.json
 */
import { readFile, writeFile } from 'node:fs/promises'
import process from 'node:process'
import type { OpTableReport } from '../opTable/OpTableReport.ts'
import { renderOpTableHtml } from '../opTable/renderOpTableHtml.ts'
import { renderOpTableMarkdown } from '../opTable/renderOpTableMarkdown.ts'

const file = process.argv[2]
if (!file?.endsWith('.json')) {
  process.stderr.write('usage: renderOpTable.ts <operations.json>\n')
  process.exit(2)
}
const report = JSON.parse(await readFile(file, 'utf8')) as OpTableReport
if (report.kind !== 'sealbox-operation-table') {
  process.stderr.write(`${file} is not an operation-table report\n`)
  process.exit(2)
}
await writeFile(file.replace(/\.json$/, '.md'), renderOpTableMarkdown(report))
await writeFile(file.replace(/\.json$/, '.html'), renderOpTableHtml(report))
process.stderr.write(`rendered ${file.replace(/\.json$/, '.{md,html}')}\n`)
