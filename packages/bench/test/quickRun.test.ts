import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sourceRevision } from '../src/core/sourceRevision.ts'
import type { OpTableReport } from '../src/opTable/OpTableReport.ts'
import { QUICK_OPS } from '../src/opTable/opTableSettings.ts'

const PACKAGE = fileURLToPath(new URL('../', import.meta.url))
const CLI = ['--conditions=@sealbox/source', 'src/cli/benchmark.ts']
const withChromium = existsSync('/usr/bin/chromium')
const engines = withChromium ? ['node', 'chromium'] : ['node']

function benchmark(args: string[]) {
  return spawnSync(process.execPath, [...CLI, ...args], { cwd: PACKAGE, encoding: 'utf8', timeout: 80_000 })
}

/** The median table: the first table whose header starts with `| n | log(q)`. */
function medianTableRows(markdown: string): string[][] {
  const section = markdown.split('## Operation table (median µs per call)')[1]?.split('<details>')[0] ?? ''
  return section
    .split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
}

describe(`npm run benchmark -- --quick (${engines.join(', ')})`, () => {
  let out: string
  let run: ReturnType<typeof benchmark>

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'sealbox-bench-quick-'))
    run = benchmark(['--quick', '--engines', engines.join(','), '--out', out])
  })

  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('exits 0 and prints the headline ratios', () => {
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/\| n \| .*\/Node/)
    expect(run.stderr).toContain('SecLevelType.none')
  })

  it('writes JSON with raw samples, machine facts and every expected cell', () => {
    const report = JSON.parse(readFileSync(join(out, 'operations.json'), 'utf8')) as OpTableReport
    expect(report.kind).toBe('sealbox-operation-table')
    expect((report as { revision?: unknown }).revision).toEqual(sourceRevision())
    expect(report.plan.ns).toEqual([4096])
    expect(report.plan.ops).toEqual(QUICK_OPS)
    expect(report.machine.cores).toBeGreaterThan(0)
    expect(report.machine.cpuModel.length).toBeGreaterThan(0)
    expect(report.loadAverageBefore).toHaveLength(3)
    expect(report.parameters.securityLevel).toMatch(/SecLevelType\.none/)
    expect(report.engines.map((e) => [e.id, e.status])).toEqual(engines.map((id) => [id, 'ok']))
    for (const engine of report.engines) {
      const result = engine.result
      expect(result?.leakedHandles).toBe(0)
      expect(result?.envs.every((env) => env.sanity.every((check) => check.ok))).toBe(true)
      expect(result?.cells.map((c) => `${c.group}/${c.op}`).sort()).toEqual([...QUICK_OPS].sort())
      for (const cell of result?.cells ?? []) {
        for (const us of [...cell.samplesUs, cell.medianUs, cell.minUs]) {
          expect(Number.isFinite(us) && us > 0, `${engine.id} ${cell.group}/${cell.op}`).toBe(true)
        }
      }
      if (engine.id === 'chromium') expect(result?.runtime.crossOriginIsolated).toBe(true)
    }
    // Published figures come along for every published row (not for BGV and Setup rows).
    expect(report.published.map((row) => `${row.group}/${row.op}`)).toEqual(
      QUICK_OPS.filter((id) => !['BGV', 'Search', 'Setup'].includes(id.split('/')[0] as string)),
    )
  })

  it('writes Markdown in the published layout with a number in every engine cell', () => {
    const markdown = readFileSync(join(out, 'operations.md'), 'utf8')
    expect(markdown).toContain('SecLevelType.none')
    expect(markdown).toContain(`Source: commit \`${sourceRevision().commit}\``)
    const rows = medianTableRows(markdown)
    expect(rows.map((row) => `${row[2]}/${row[3]?.replace(' †', '')}`)).toEqual(QUICK_OPS)
    for (const row of rows) {
      // log(q): SEAL's default chain, or the search's [27, 28, 28] for the Search rows.
      expect(row.slice(0, 2)).toEqual(['4096', row[2] === 'Search' ? '83' : '109'])
      for (const cell of row.slice(4, 4 + engines.length)) expect(Number(cell)).toBeGreaterThan(0)
      if (withChromium) expect(row[4 + engines.length]).toMatch(/^\d+\.\d+×$/)
    }
  })

  it('writes a self-contained HTML report with SVG charts', () => {
    const html = readFileSync(join(out, 'operations.html'), 'utf8')
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain('<svg')
    expect(html).not.toMatch(/<script|<link|src="http/)
    for (const id of QUICK_OPS) expect(html).toContain(id.split('/')[1])
  })
})

describe('npm run benchmark with a bad flag', () => {
  it('exits 2 with a message that says what is accepted', () => {
    const bad = benchmark(['--n', '3000'])
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain('--n: n must be among 1024, 2048, 4096, 8192, 16384, 32768')
    expect(bad.stderr).toContain('usage: npm run benchmark -- [flags]')
  })
})
