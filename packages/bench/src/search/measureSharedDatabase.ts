import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ServerNode } from '@sealbox/testkit'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'

/*
 * One processed copy of the search database per node, measured:
 *   pnpm --filter @sealbox/bench benchmark:shared-database -- --rows 100000 --dim 384 --workers 1,3
 * Starts a real server (`node src/main.ts`, EXECUTOR=pool, DATABASE=synthetic) once per
 * worker count on a fresh DATA_DIR with SEARCH_CACHE=false (every start processes), and
 * reads: the time from spawn to /readyz, the server process's resident set once ready
 * (VmRSS; worker threads are in the same process) and its peak (VmHWM), how each worker
 * got the database (its warm log line: processed, or attached to the shared diagonals),
 * and the shared diagonals' bytes (/metrics). Writes
 * packages/bench/results/shared-database/shared-database.{md,json}.
 */

const Flags = z.object({
  rows: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  dim: z.coerce.number().int().min(1).max(4096).default(384),
  workers: z
    .string()
    .default('1,3')
    .transform((list) => list.split(',').map(Number))
    .pipe(z.array(z.number().int().min(1).max(16)).min(1)),
})

interface StartRow {
  workers: number
  readyMs: number
  rssMiB: number
  peakRssMiB: number
  processed: number
  attached: number
  /** The processing worker's warm-up (ms), as it logged it. */
  builderWarmMs: number
  /** The slowest attaching worker's warm-up (ms), as it logged it (0: none attached). */
  attachWarmMs: number
  diagonalMiB: number
}

function flags() {
  const { values } = parseArgs({
    // pnpm passes its `--` separator on.
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: { rows: { type: 'string' }, dim: { type: 'string' }, workers: { type: 'string' } },
  })
  const parsed = Flags.safeParse(values)
  if (!parsed.success) throw new BenchError('INVALID_FLAGS', parsed.error.issues[0]?.message ?? 'invalid flags')
  return parsed.data
}

/** A field of /proc/<pid>/status, MiB. */
function statusMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = pid === undefined ? '' : readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024)
}

async function start(rows: number, dim: number, workers: number): Promise<StartRow> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sealbox-shared-database-bench-'))
  const started = performance.now()
  const node = await ServerNode.start({
    name: 'shared-database',
    dataDir,
    readyTimeoutMs: 60 * 60_000,
    env: {
      ...BENCH_SERVER_ENV,
      LOG_LEVEL: 'info',
      EXECUTOR: 'pool',
      WORKERS: String(workers),
      DATABASE: 'synthetic',
      SYNTHETIC_ROWS: String(rows),
      SYNTHETIC_DIM: String(dim),
      SEARCH_CACHE: 'false',
    },
  })
  const readyMs = performance.now() - started
  try {
    const rssMiB = statusMiB(node.pid, 'VmRSS')
    const peakRssMiB = statusMiB(node.pid, 'VmHWM')
    const warm = (await node.log())
      .split('\n')
      .filter((line) => line.includes('worker warm'))
      .map((line) => JSON.parse(line) as { warmMs: number; diagonals?: { bytes: number; attached: boolean } })
    const attached = warm.filter((line) => line.diagonals?.attached)
    const builders = warm.filter((line) => !line.diagonals?.attached)
    const metrics = await (await fetch(`${node.url}/metrics`)).text()
    const diagonalBytes = Number(/^sealbox_search_diagonal_bytes\{[^}]*shared="true"\} (\d+)$/m.exec(metrics)?.[1] ?? 0)
    return {
      workers,
      readyMs,
      rssMiB,
      peakRssMiB,
      processed: builders.length,
      attached: attached.length,
      builderWarmMs: Math.max(0, ...builders.map((line) => line.warmMs)),
      attachWarmMs: Math.max(0, ...attached.map((line) => line.warmMs)),
      diagonalMiB: Math.round(diagonalBytes / 2 ** 20),
    }
  } finally {
    await node.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

const { rows, dim, workers } = flags()
const command = `pnpm --filter @sealbox/bench benchmark:shared-database -- --rows ${rows} --dim ${dim} --workers ${workers.join(',')}`
const results: StartRow[] = []
for (const count of workers) {
  const row = await start(rows, dim, count)
  process.stderr.write(`${JSON.stringify(row)}\n`)
  results.push(row)
}
const load = loadAverage()
const base = results[0] as StartRow
const lines = [
  '# One processed copy of the search database per node',
  '',
  `\`${command}\``,
  '',
  `DATABASE=synthetic, V = ${rows}, D = ${dim}, EXECUTOR=pool, SEARCH_CACHE=false (every start processes); load average ${load.join(' / ')} (1 / 5 / 15 min) at the end.`,
  '',
  '| workers | ready (spawn → /readyz) | RSS when ready | peak RSS | processed / attached | processing worker warm | slowest attaching worker warm | shared diagonals |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${r.workers} | ${(r.readyMs / 1000).toFixed(1)} s | ${r.rssMiB} MiB | ${r.peakRssMiB} MiB | ${r.processed} / ${r.attached} | ${(r.builderWarmMs / 1000).toFixed(1)} s | ${r.attached ? `${(r.attachWarmMs / 1000).toFixed(1)} s` : '–'} | ${r.diagonalMiB} MiB |`,
  ),
  '',
  ...results
    .slice(1)
    .map(
      (r) =>
        `${r.workers} workers against ${base.workers}: RSS when ready +${r.rssMiB - base.rssMiB} MiB (${((r.rssMiB - base.rssMiB) / Math.max(1, r.workers - base.workers)).toFixed(0)} MiB per added worker), against ${r.diagonalMiB} MiB of shared diagonals.`,
    ),
]
const outDir = join(dirname(fileURLToPath(import.meta.url)), '../../results/shared-database')
await mkdir(outDir, { recursive: true })
await writeFile(join(outDir, 'shared-database.md'), `${lines.join('\n')}\n`)
await writeFile(
  join(outDir, 'shared-database.json'),
  `${JSON.stringify({ command, rows, dim, loadAverage: load, results }, null, 2)}\n`,
)
process.stdout.write(`${lines.join('\n')}\n`)
