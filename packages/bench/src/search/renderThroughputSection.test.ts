import { describe, expect, it } from 'vitest'
import type { ThroughputReport } from './measureServerThroughput.ts'
import { renderThroughputSection, replaceSection, THROUGHPUT_HEADING } from './renderThroughputSection.ts'
import { summarizeDirectThroughput, summarizeThroughputCell, type ThroughputCell } from './throughputStats.ts'

function cell(workers: number, concurrency: number, qps: number): ThroughputCell {
  const wallMs = 1000
  const samples = Array.from({ length: qps }, () => ({
    latencyMs: 100,
    status: 200,
    phases: { compute: 3, total: 9, cpu: 10 },
    startMs: 0,
  }))
  return {
    workers,
    concurrency,
    startedAt: '2026-01-01T00:00:00.000Z',
    loadAverage: [1.5, 1, 1],
    threadShares: workers === 1 ? { workers: 0.5, eventLoop: 0.125, v8Helpers: 0.375, other: 0 } : null,
    wallMs,
    stoppedBy: 'requests',
    verified: true,
    ...summarizeThroughputCell({ samples, wallMs, serverCpuMs: qps * 20, workers, cores: 2 }),
  }
}

const report: ThroughputReport = {
  command: 'npm run benchmark:search -- --throughput-only',
  date: '2026-01-01T00:00:00.000Z',
  cores: 2,
  loadAverageBefore: [1, 2, 3],
  loadAverageAfter: [4, 5, 6],
  plan: { workers: [1, 2], concurrency: [4], requests: 100, maxSeconds: 10, directSamples: 4 },
  workload: { title: 'Private search (V=10000, D=16, default config)', facts: { params: 'BGV n=4096' } },
  direct: summarizeDirectThroughput([12, 10, 14, 16], [10, 10, 10, 10], {
    workers: 0,
    eventLoop: 40,
    v8Helpers: 8,
    other: 0,
  }),
  cells: [cell(1, 4, 30), cell(2, 4, 40)],
  failures: [],
}

describe('the throughput section', () => {
  it('names its command and load, and has a direct row and one row per server and client count', () => {
    const section = renderThroughputSection(report)
    expect(section.startsWith(`${THROUGHPUT_HEADING}\n`)).toBe(true)
    expect(section).toContain('Measured by `npm run benchmark:search -- --throughput-only`')
    expect(section).toContain('load average 1 / 2 / 3 before, 4 / 5 / 6 after')
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| where'))
    expect(rows).toHaveLength(3)
    expect(rows[0]).toMatch(/^\| direct: .* \| 1 \| 4 \(0\) \| 76\.9 \| 76\.9 \| 10\.0 min \/ 13\.0 median \|/)
    expect(rows[1]).toMatch(/^\| `pool`, WORKERS=1, HTTP \| 4 \| 30 \(0\) \| 30\.0 \| \*\*30\.0\*\* \|/)
    expect(rows[2]).toContain('| 40.0 | **20.0** |')
    expect(rows[1]).toContain('| 50 / 13 / 38 / 0 % |')
    expect(rows[2]).toContain('| 50.0 | – |')
    // The best q/s per worker core (1 worker) against the direct 83.3 q/s per core (12 ms of CPU, every thread).
    expect(section).toContain('**Best served: 30.0 q/s with 4 clients on 1 worker thread(s)')
    expect(section).toContain('against 83.3 q/s per core direct (direct ÷ served: 2.78×)')
    expect(section).toContain('20.0 ms of CPU per query (every thread) against 12.0 ms direct (every thread too; 1.67×')
    expect(rows[0]).toContain('| 10.0 | 12.0 | **83.3** | job 83 / V8 helpers 17 / other 0 % |')
  })

  it('lists servers that failed', () => {
    const section = renderThroughputSection({ ...report, cells: [], failures: [{ workers: 2, message: 'no port' }] })
    expect(section).toContain('- pool with 2 worker(s) failed: no port')
    expect(section).not.toContain('Best served')
  })
})

describe('replaceSection', () => {
  const section = `${THROUGHPUT_HEADING}\n\nnew\n`
  it('replaces the section up to the next heading, or to the end', () => {
    const middle = `# R\n\n## A\n\na\n\n${THROUGHPUT_HEADING}\n\nold\n\n## B\n\nb\n`
    expect(replaceSection(middle, THROUGHPUT_HEADING, section)).toBe(
      `# R\n\n## A\n\na\n\n${THROUGHPUT_HEADING}\n\nnew\n\n## B\n\nb\n`,
    )
    const last = `# R\n\n## A\n\na\n\n${THROUGHPUT_HEADING}\n\nold\n`
    expect(replaceSection(last, THROUGHPUT_HEADING, section)).toBe(`# R\n\n## A\n\na\n\n${section}`)
  })

  it('appends the section when there is none', () => {
    expect(replaceSection('# R\n\n## A\n\na\n', THROUGHPUT_HEADING, section)).toBe(`# R\n\n## A\n\na\n\n${section}`)
  })
})
