import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PUBLISHED_PEERS, publishedPeerLines } from './publishedPeers.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'

const results = new URL('../../results/search/apple-headline/', import.meta.url)
const report = JSON.parse(readFileSync(new URL('search-benchmark.json', results), 'utf8')) as SearchBenchReport

describe('published native peers beside the search targets', () => {
  it("divides this run's Apple-shape default by each peer, at the minimum and the median", () => {
    const apple = report.targets.find((t) => t.what === 'default config' && t.shape.includes("Apple's shape"))
    expect(apple).toBeDefined()
    const lines = publishedPeerLines(report.targets).join('\n')
    for (const peer of PUBLISHED_PEERS) {
      const min = ((apple?.wasm.totalMin ?? Number.NaN) / peer.min).toFixed(2)
      const median = ((apple?.wasm.totalMedian ?? Number.NaN) / peer.median).toFixed(2)
      expect(lines).toContain(`| ${peer.name} |`)
      expect(lines).toContain(`**${min}×** / ${median}×`)
    }
    expect(lines).toMatch(/measured outside this benchmark on 2026-11-29/)
  })

  it('says nothing for a run without an Apple-shape default', () => {
    expect(publishedPeerLines(report.targets.filter((t) => !t.shape.includes("Apple's shape")))).toEqual([])
  })

  it('is in the committed headline report as rendered from its JSON', () => {
    const markdown = readFileSync(new URL('search-benchmark.md', results), 'utf8')
    expect(markdown).toContain(publishedPeerLines(report.targets).join('\n'))
  })
})
