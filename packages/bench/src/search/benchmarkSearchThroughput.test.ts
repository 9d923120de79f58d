import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ThroughputReport } from './measureServerThroughput.ts'
import { THROUGHPUT_HEADING } from './renderThroughputSection.ts'

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url))

/** Runs the CLI without blocking vitest's worker (the servers answer on this machine's loopback). */
function benchmark(args: string[], timeoutMs: number): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=@sealbox/source', 'src/search/benchmarkSearch.ts', ...args], {
      cwd: PACKAGE,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // A timeout, not an ordering: a run that hangs is killed and its assertions fail.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.once('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stderr })
    })
  })
}

// Shape of a real `--throughput-only --quick` run (two pool servers, 4 and 16 clients); never timings.
describe('npm run benchmark:search -- --throughput-only --quick', () => {
  let out: string
  let run: Awaited<ReturnType<typeof benchmark>>

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'sealbox-bench-search-throughput-'))
    // A report from an earlier run: only its throughput section may change.
    writeFileSync(join(out, 'search-benchmark.md'), `# Private search benchmark\n\n## Earlier\n\nkept\n`)
    writeFileSync(join(out, 'search-benchmark.json'), JSON.stringify({ command: 'earlier' }))
    // Six cells of two pool servers on 2 cores that other test files share: 3 minutes at
    // load 25 was not enough (the run was killed mid-way), so the hang guard is 15.
    run = await benchmark(['--throughput-only', '--quick', '--out', out], 900_000)
  }, 910_000)

  afterAll(() => rmSync(out, { recursive: true, force: true }))

  it('measures every server and client count through the real server, with every answer exact', () => {
    expect(run.status, run.stderr.slice(-2000)).toBe(0)
    const report = JSON.parse(readFileSync(join(out, 'search-benchmark.json'), 'utf8')) as {
      command: string
      throughput: ThroughputReport
    }
    expect(report.command).toBe('earlier')
    const { throughput } = report
    expect(throughput.command).toBe(`npm run benchmark:search -- --throughput-only --quick --out ${out}`)
    expect(throughput.failures).toEqual([])
    expect(throughput.cells.map((cell) => [cell.workers, cell.concurrency])).toEqual([
      [1, 4],
      [1, 16],
      [2, 4],
      [2, 16],
    ])
    for (const cell of throughput.cells) {
      const where = `WORKERS=${cell.workers} c=${cell.concurrency}`
      expect(cell.verified, where).toBe(true)
      expect(cell.errors, where).toBe(0)
      expect(cell.requests, where).toBeGreaterThan(0)
      expect(cell.qps, where).toBeGreaterThan(0)
      expect(cell.workerCpuMs, where).toBeGreaterThan(0)
      expect(cell.serverCpuMs, where).toBeGreaterThan(0)
      expect(cell.threadShares?.workers, `${where} worker threads' share of the server CPU`).toBeGreaterThan(0)
    }
    expect(throughput.direct.total.samples).toBe(throughput.plan.directSamples)
    expect(throughput.direct.qpsPerCore).toBeGreaterThan(0)
    expect(throughput.direct.processCpuMs).toBeGreaterThan(0)
  })

  it('replaces only the throughput section of the Markdown report', () => {
    const markdown = readFileSync(join(out, 'search-benchmark.md'), 'utf8')
    expect(markdown.startsWith('# Private search benchmark\n\n## Earlier\n\nkept\n\n')).toBe(true)
    expect(markdown.split(THROUGHPUT_HEADING)).toHaveLength(2)
    expect(markdown).toContain('| `pool`, WORKERS=2, HTTP | 16 |')
  })
})
