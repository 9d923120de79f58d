import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  figureFound,
  headlineRows,
  markedHeadlines,
  quotedFigures,
  resultsFigures,
  resultsMarkdown,
} from './readmeFigures.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const rows = headlineRows(readFileSync(`${ROOT}README.md`, 'utf8'))

// Rows whose results are being regenerated on another branch: their README figures and their
// results file change together there. Until then a mismatch is reported, not failed; delete the
// entry once the regenerated results and row have landed.
const AWAITING_REGENERATION = new Set<string>([])

describe('README "Measured here" figures', () => {
  it('parses every row, each with figures and a results file', () => {
    expect(rows.map((row) => row.what.split(' ')[0])).toEqual(['SEAL', 'Server', 'Private', 'Evaluation'])
    for (const row of rows) {
      expect(row.figures.length, row.what).toBeGreaterThan(0)
      expect(row.resultsFiles.length, row.what).toBeGreaterThan(0)
    }
  })

  for (const row of rows) {
    it(`finds every figure of "${row.what}" in ${row.resultsFiles.join(', ')}`, (context) => {
      const stated = resultsFigures(resultsMarkdown(ROOT, row.resultsFiles))
      const missing = row.figures.filter((figure) => !figureFound(figure, stated)).map((figure) => figure.text)
      if (missing.length > 0 && AWAITING_REGENERATION.has(row.what)) {
        context.skip(`awaiting regenerated results; not found: ${missing.join(', ')}`)
      }
      expect(missing).toEqual([])
    })
  }
})

describe('readmeFigures', () => {
  it('reads numbers with units, lists sharing a unit, and thousands separators', () => {
    const figures = quotedFigures('p99 **5.1 s** vs 43 ms; 135 vs 1052 ms; 2.16× / 2.05×; 3 % of 10,000 q/s')
    expect(figures.map((figure) => [figure.value, figure.unit, figure.decimals])).toEqual([
      [5.1, 's', 1],
      [43, 'ms', 0],
      [135, 'ms', 0],
      [1052, 'ms', 0],
      [2.16, '×', 2],
      [2.05, '×', 2],
      [3, '%', 0],
      [10000, 'q/s', 0],
    ])
  })

  it('reads a headline sentence marked with the results files it quotes', () => {
    const readme = [
      'Intro 9 ms, not marked.',
      '',
      '<!-- figures: packages/bench/results/search/search-benchmark.md packages/bench/results/server/server.md -->',
      'A search takes **53.6 ms** end to end',
      'and 28.5 KB up.',
      '',
      'After 7 ms, not marked.',
    ].join('\n')
    expect(markedHeadlines(readme)).toEqual([
      {
        what: 'A search takes **53.6 ms** end to end\nand 28.5 KB up.…',
        figures: quotedFigures('53.6 ms 28.5 KB'),
        resultsFiles: ['packages/bench/results/search/search-benchmark.md', 'packages/bench/results/server/server.md'],
      },
    ])
  })

  it('skips provenance notes and minima written "min"', () => {
    expect(
      quotedFigures(
        '53.6 ms (2026-11-28, commit abc1234) (50.3 min) (2026-11-28, both committed in 5128e0f; run took 7 s)',
      ),
    ).toHaveLength(1)
  })

  it('reads the cells of a results table with the unit their column header names', () => {
    const markdown = [
      '| row | p50 / p99 ms | req/s | ratio |',
      '|---|---:|---:|---:|',
      '| inline | 2764 / **5128** | 19 | 1.5× |',
    ].join('\n')
    expect(resultsFigures(markdown).map((figure) => figure.text)).toEqual(['2764 ms', '5128 ms', '19 q/s', '1.5 ×'])
  })

  it('matches a figure rounded to the README precision, and seconds against ms', () => {
    const [seconds, exact, ratio] = quotedFigures('5.1 s, 43 ms, 2.2×')
    if (!seconds || !exact || !ratio) throw new TypeError('three figures expected')
    expect(figureFound(seconds, resultsFigures('p99 5128 ms'))).toBe(true)
    expect(figureFound(seconds, resultsFigures('p99 5228 ms'))).toBe(false)
    expect(figureFound(exact, resultsFigures('p99 43.0 ms'))).toBe(true)
    expect(figureFound(exact, resultsFigures('p99 43.6 ms, 1,043 ms, 43 q/s'))).toBe(false)
    expect(figureFound(ratio, resultsFigures('2.16× slower'))).toBe(true)
    expect(figureFound(ratio, resultsFigures('2.16 ms'))).toBe(false)
  })
})
