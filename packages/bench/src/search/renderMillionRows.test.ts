import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type MillionRowsResult, renderMillionRows } from './measureMillionRows.ts'

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
    expect(json.results.map((result) => result.name)).toEqual(['exact', 'cluster-private'])
    for (const result of json.results) {
      expect(result.rows).toBe(1_000_000)
      expect(result.exact).toBe(true)
      expect(result.serverTotal.samples).toBeGreaterThanOrEqual(10)
      // Issue 27 item 7: both modes end to end over both shaped links, through Toxiproxy.
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
