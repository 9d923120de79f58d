import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** One number with its unit as a README quotes it, e.g. `5.1 s` or `2.16×`. */
export interface QuotedFigure {
  text: string
  value: number
  unit: string
  /** Decimal places the README shows; a results value matches when rounded to these. */
  decimals: number
}

/** One row of the README's "Measured here" table: its figures and the results files it links. */
export interface HeadlineRow {
  what: string
  figures: QuotedFigure[]
  resultsFiles: string[]
}

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`
// Longest units first so `ms` is not read as `s`, nor `Mbit/s` as `s`. `min` is left out on
// purpose: the README writes "(50.3 min)" for a minimum in ms, not for minutes.
const UNIT = String.raw`\(unit\?\)|Mbit\/s|q\/s|ms|KB|MB|s|×|%`
// A unit applies to every number of a list before it: "135 vs 1052 ms", "2.16× / 2.05×".
const FIGURE_LIST = new RegExp(String.raw`((?:(?:${NUMBER})\s*(?:vs|\/)\s*)*)(${NUMBER})\s?(${UNIT})(?![\w/])`, 'g')
const RESULTS_LINK = /\]\((packages\/bench\/results\/[^)\s]+\.(?:md|json))\)/g
// "(2026-11-28, commit abc1234)" / "(committed in abc1234)": provenance, not figures.
const PROVENANCE = /\((?:\d{4}-\d{2}-\d{2},[^)]*?)?\b(?:commit|committed in)\s+[0-9a-f]{7,40}\b[^)]*\)/g

function figure(text: string, unit: string): QuotedFigure {
  const digits = text.replace(/,/g, '')
  return { text: `${text} ${unit}`, value: Number(digits), unit, decimals: digits.split('.')[1]?.length ?? 0 }
}

/** Every number with a unit in `text`, after dropping provenance notes. */
export function quotedFigures(text: string): QuotedFigure[] {
  const figures: QuotedFigure[] = []
  for (const match of text.replace(PROVENANCE, '').matchAll(FIGURE_LIST)) {
    const [, list = '', last = '', unit = ''] = match
    for (const item of list.match(new RegExp(NUMBER, 'g')) ?? []) figures.push(figure(item, unit))
    figures.push(figure(last, unit))
  }
  return figures
}

// `<!-- figures: packages/bench/results/a.md packages/bench/results/b.md -->` before a paragraph
// marks a headline sentence outside the table; its figures are checked against those files.
const MARKER = /^<!-- figures:((?:\s+packages\/bench\/results\/\S+\.(?:md|json))+)\s*-->\n((?:.+\n?)+)/gm

/** The paragraphs of `readme` marked with a `<!-- figures: … -->` comment naming their results files. */
export function markedHeadlines(readme: string): HeadlineRow[] {
  return [...readme.matchAll(MARKER)].map(([, files = '', paragraph = '']) => ({
    what: `${paragraph.slice(0, 60).trim()}…`,
    figures: quotedFigures(paragraph),
    resultsFiles: files.trim().split(/\s+/),
  }))
}

/** The rows of the table under `## Measured here` in `readme`, then its marked headlines. */
export function headlineRows(readme: string): HeadlineRow[] {
  const section = readme.split(/^## Measured here$/m)[1]?.split(/^## /m)[0] ?? ''
  const rows = section.split('\n').filter((line) => line.startsWith('|'))
  return [...rows.slice(2).map(tableRow), ...markedHeadlines(readme)]
}

function tableRow(line: string): HeadlineRow {
  const [what = '', , headline = '', links = ''] = line
    .split(/(?<!\\)\|/)
    .slice(1)
    .map((cell) => cell.trim())
  return {
    what,
    figures: quotedFigures(headline),
    resultsFiles: [...links.matchAll(RESULTS_LINK)].map((match) => match[1] ?? ''),
  }
}

const UNIT_IN_HEADER = new RegExp(String.raw`(?:^|[\s(])(${UNIT})(?=[\s),]|$)`)

const BARE_NUMBER = new RegExp(String.raw`(?<![\w.,/=-])(?:${NUMBER})(?![\d.,]|\s?(?:${UNIT})(?![\w/])|[\w=])`, 'g')

// A table whose header names no unit (the search report states "ms" once above its table).
const UNSTATED = '(unit?)'

/** `cell` with `unit` (or {@link UNSTATED}) written after each of its numbers that has none. */
function withUnit(cell: string, unit: string): string {
  return cell.replace(BARE_NUMBER, (number) => `${number} ${unit || UNSTATED}`)
}

/**
 * Every figure a results Markdown file states: numbers followed by a unit in prose, and table
 * cells, which take the unit their column header names ("p50 / p99 ms", "req/s").
 */
export function resultsFigures(markdown: string): QuotedFigure[] {
  const lines = markdown.split('\n')
  const text: string[] = []
  let headerUnits: string[] = []
  lines.forEach((line, index) => {
    if (!line.startsWith('|')) {
      headerUnits = []
      text.push(line)
      return
    }
    const cells = line.split('|').slice(1, -1)
    if (/^\|[\s:|-]+\|$/.test(line)) return
    if (/^\|[\s:|-]+\|$/.test(lines[index + 1] ?? '')) {
      headerUnits = cells.map((cell) => UNIT_IN_HEADER.exec(cell.replace('req/s', 'q/s'))?.[1] ?? '')
      return
    }
    text.push(cells.map((cell, column) => withUnit(cell.replaceAll('**', ''), headerUnits[column] ?? '')).join(' ; '))
  })
  return quotedFigures(text.join('\n'))
}

/** The Markdown of the results files a row links. */
export function resultsMarkdown(root: string, files: string[]): string {
  return files.map((file) => readFileSync(join(root, file), 'utf8')).join('\n')
}

// The same quantity in a related unit: a README figure in s may come from results in ms.
const SCALES: Record<string, Record<string, number>> = { s: { s: 1, ms: 1e-3 }, ms: { ms: 1, s: 1e3 } }

/** Whether `figure` is one of `stated`, in its unit or a related one, rounded to the README's precision. */
export function figureFound(figure: QuotedFigure, stated: QuotedFigure[]): boolean {
  const step = 10 ** -figure.decimals
  const scales: Record<string, number> = { ...(SCALES[figure.unit] ?? { [figure.unit]: 1 }), [UNSTATED]: 1 }
  return stated.some((candidate) => {
    const scale = scales[candidate.unit]
    return scale !== undefined && Math.abs(candidate.value * scale - figure.value) <= step / 2 + 1e-9
  })
}
