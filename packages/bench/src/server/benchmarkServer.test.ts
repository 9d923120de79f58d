import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunStatKey } from './runStats.ts'
import type { ServerBenchReport } from './ServerBenchReport.ts'
import { DEFAULT_ROWS, rowSpec } from './serverBenchFlags.ts'

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url))
const CLI = ['--conditions=@sealbox/source', 'src/server/benchmarkServer.ts']

/** Runs the CLI without blocking vitest's worker (the servers answer on this machine's loopback). */
function benchmark(
  args: string[],
  timeoutMs: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: PACKAGE })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // A timeout, not an ordering: a run that hangs is killed and its assertions fail.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

const positive = (value: number | null | undefined) => typeof value === 'number' && Number.isFinite(value) && value > 0
const finite = (value: number | null | undefined) => typeof value === 'number' && Number.isFinite(value) && value >= 0

const SERVER_POSITIVE: RunStatKey[] = [
  'requests',
  'throughput',
  'latencyP50',
  'latencyP99',
  'computeP50',
  'executorP50',
  'healthzFreshP50',
  'healthzFreshP99',
  'healthzKeepAliveP50',
  'healthzKeepAliveP99',
  'probes',
]
const DIRECT_POSITIVE: RunStatKey[] = ['requests', 'throughput', 'latencyP50', 'latencyP99', 'computeP50']

/** The data lines of the first Markdown table after `heading`. */
function tableAfter(markdown: string, heading: string): string[][] {
  const section = markdown.split(heading)[1] ?? ''
  const lines = section.split('\n\n')[1]?.split('\n') ?? []
  return lines.slice(2).map((line) =>
    line
      .split(' | ')
      .map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim())
      .filter((cell) => cell !== ''),
  )
}

// Shape and sanity of a real `--quick` run (five rows, both workloads, c=1 and 4); never timings.
describe('npm run benchmark:server -- --quick', () => {
  let out: string
  let run: Awaited<ReturnType<typeof benchmark>>
  let report: ServerBenchReport

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'sealbox-bench-server-quick-'))
    // A deadline, not an ordering: a real run takes ~2 min at CI's load alone, longer beside
    // the other test files (over 7 min at load 25), so the hang guard is 15 min.
    run = await benchmark(['--quick', '--out', out], 900_000)
    report = JSON.parse(readFileSync(join(out, 'server.json'), 'utf8')) as ServerBenchReport
  }, 910_000)

  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('exits 0 and prints the headline and the tables', () => {
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain('## Headline')
    expect(run.stdout).toMatch(/`\/healthz` p99 .* with `inline` vs .* with `pool-1`/)
  })

  it('writes JSON with machine facts, every cell, and raw samples of every run', () => {
    expect(report.kind).toBe('sealbox-server-table')
    expect(report.settings.concurrency).toEqual([1, 4])
    expect(report.settings.rows.map((r) => r.id)).toEqual([...DEFAULT_ROWS])
    expect(report.machine.cores).toBeGreaterThan(0)
    expect(report.machine.node).toMatch(/^v\d+/)
    expect(report.loadAverageBefore).toHaveLength(3)
    expect(report.loadAverageAfter).toHaveLength(3)
    expect(report.servers.map((s) => s.row).sort()).toEqual(['inline', 'pool-1', 'pool-2', 'process-1'])

    const expected = DEFAULT_ROWS.flatMap((row) =>
      (['search', 'program'] as const).flatMap((workload) =>
        (row === 'direct' ? [1] : [1, 4]).map((c) => `${row} ${workload} c=${c}`),
      ),
    )
    expect(report.cells.map((c) => `${c.row} ${c.workload} c=${c.concurrency}`)).toEqual(expected)
    for (const cell of report.cells) {
      const where = `${cell.row} ${cell.workload} c=${cell.concurrency}`
      expect(cell.errors, where).toBe(0)
      const server = rowSpec(cell.row).kind === 'server'
      for (const key of server ? SERVER_POSITIVE : DIRECT_POSITIVE) {
        expect(positive(cell.stats[key]), `${where} ${key} = ${cell.stats[key]}`).toBe(true)
      }
      if (server) {
        expect(cell.verified, where).toBe(true)
        expect(finite(cell.stats.loopDelayP99), `${where} loop delay`).toBe(true)
      } else {
        expect(cell.stats.healthzFreshP99).toBeNull()
      }
    }
    for (const runRecord of report.runs) {
      expect(runRecord.samples.latencyMs.length).toBe(runRecord.stats.requests)
      expect(runRecord.samples.latencyMs.every((v) => v > 0)).toBe(true)
      if (runRecord.row !== 'direct') {
        expect(runRecord.probes?.fresh.latencyMs.length).toBeGreaterThan(0)
        expect(runRecord.probes?.keepAlive.latencyMs.length).toBeGreaterThan(0)
      }
    }
    expect(report.headline.map((h) => [h.workload, h.concurrency, h.pool])).toEqual([
      ['search', 4, 'pool-1'],
      ['program', 4, 'pool-1'],
    ])
    for (const h of report.headline) expect(positive(h.ratio)).toBe(true)
  })

  it('writes Markdown with a number in every cell of every row', () => {
    const markdown = readFileSync(join(out, 'server.md'), 'utf8')
    for (const title of report.workloads.map((w) => w.title)) {
      const rows = tableAfter(markdown, `## ${title}`)
      expect(rows.map((row) => row[0])).toEqual(report.settings.rows.map((r) => r.label))
      for (const row of rows) {
        const direct = row[0]?.startsWith('Direct')
        const numbers = row.slice(1).flatMap((cell) => cell.split(' / '))
        const present = numbers.filter((n) => n !== '–')
        expect(present.length, row.join(' | ')).toBe(direct ? 4 : 11)
        for (const n of present) expect(Number(n), `${row[0]}: ${n}`).toBeGreaterThanOrEqual(0)
      }
    }
  })

  it('measures another tenant’s search while one tenant floods maximum-cost programs', () => {
    const flood = report.costFlood
    expect(flood, run.stderr).toBeDefined()
    if (!flood) return
    expect(flood.programCost).toBeGreaterThan(0)
    expect(flood.maxProgramCost).toBeGreaterThanOrEqual(flood.programCost)
    expect(flood.idleSearch.requests).toBe(10)
    expect(flood.floodSearch.requests).toBeGreaterThanOrEqual(1)
    expect(flood.programJob.requests).toBeGreaterThanOrEqual(1)
    expect(positive(flood.floodSearch.p50)).toBe(true)
    expect(finite(flood.floodSearch.queueMax)).toBe(true)
    expect(flood.verified).toBe(true)
    const markdown = readFileSync(join(out, 'server.md'), 'utf8')
    const rows = tableAfter(markdown, '## Cost fairness')
    expect(rows.map((row) => row[0])).toEqual(['server otherwise idle', 'during the flood'])
  })

  it('writes a self-contained HTML report with SVG charts', () => {
    const html = readFileSync(join(out, 'server.html'), 'utf8')
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain('<svg')
    expect(html).not.toMatch(/<script|<link|src="http/)
    expect(html).toContain('/healthz p99 while the HE load runs')
  })
})

describe('npm run benchmark:server with a bad flag', () => {
  it('exits 2 with a message that names the flag and shows the usage', () => {
    const bad = spawnSync(process.execPath, [...CLI, '--concurrency', '0'], { cwd: PACKAGE, encoding: 'utf8' })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--concurrency: concurrency levels are whole numbers from 1 to 64')
    expect(bad.stderr).toContain('usage: npm run benchmark:server -- [flags]')
  })
})
