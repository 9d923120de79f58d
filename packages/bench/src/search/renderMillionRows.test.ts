import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MillionRowsResult } from './measureMillionRows.ts'
import { mergeMillionRows } from './mergeMillionRows.ts'
import { renderMillionRows } from './renderMillionRows.ts'

const dir = join(import.meta.dirname, '..', '..', 'results', 'search')

describe('search-million.md', () => {
  it('is what renderMillionRows makes of search-million.json (never edited by hand)', () => {
    const json = JSON.parse(readFileSync(join(dir, 'search-million.json'), 'utf8')) as {
      command: string
      date: string
      results: MillionRowsResult[]
    }
    const markdown = readFileSync(join(dir, 'search-million.md'), 'utf8')
    const rendered = renderMillionRows(json)
    // The committed file is the rendering plus its source stamp.
    for (const line of rendered.split('\n').filter((text) => text !== '')) expect(markdown).toContain(line)
    // Both cases at a million rows; exact rows at smaller V make the scaling table.
    for (const name of ['exact', 'cluster-private']) {
      expect(
        json.results.some((result) => result.name === name && result.rows === 1_000_000),
        name,
      ).toBe(true)
    }
    for (const result of json.results) {
      expect(result.exact).toBe(true)
      expect(result.serverTotal.samples).toBeGreaterThanOrEqual(10)
      // Issue 27 item 7: both modes end to end over both shaped links, through Toxiproxy, at a
      // million rows (the scaling table's smaller V are measured without links).
      if (result.rows !== 1_000_000) continue
      expect(result.links?.map((row) => [row.link.name, row.shapedBy])).toEqual([
        ['broadband', 'toxiproxy'],
        ['mobile', 'toxiproxy'],
      ])
      for (const row of result.links ?? []) {
        expect(row.samples).toBeGreaterThanOrEqual(3)
        expect(row.endToEndMs).toBeGreaterThanOrEqual(row.serverMs)
      }
    }
  })
})

describe('mergeMillionRows', () => {
  const row = (name: MillionRowsResult['name'], rows: number, serverMs: number) =>
    ({ name, rows, serverTotal: { median: serverMs } }) as MillionRowsResult
  const earlier = {
    command: 'npm run benchmark:search -- --million',
    date: '2026-11-29T09:36:47.754Z',
    commit: 'e3be090',
  }

  it("replaces the rows this run measured and keeps the others with their own run's source", () => {
    const kept = [row('exact', 1_000_000, 7141), row('cluster-private', 1_000_000, 3156)]
    const now = { command: 'npm run benchmark:search -- --million --million-cases exact', date: 'now', commit: 'abc' }
    const measured = [row('exact', 10_000, 50), row('exact', 1_000_000, 900)].map((r) => ({ ...r, source: now }))
    const merged = mergeMillionRows(kept, measured, earlier)
    expect(merged.map((r) => [r.name, r.rows, r.serverTotal.median, r.source?.commit])).toEqual([
      ['exact', 1_000_000, 900, 'abc'],
      ['exact', 10_000, 50, 'abc'],
      ['cluster-private', 1_000_000, 3156, 'e3be090'],
    ])
  })

  it('keeps a source a kept row already has', () => {
    const own = { ...earlier, commit: 'f00d' }
    const merged = mergeMillionRows([{ ...row('cluster-private', 1_000_000, 1), source: own }], [], earlier)
    expect(merged[0]?.source).toEqual(own)
  })
})
