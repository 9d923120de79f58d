import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { defineCli, runProgram } from '../core/defineCli.ts'
import { listFlagOf, numberFlag } from '../core/flagSchemas.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { measureServerStart } from './measureServerStart.ts'

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

const CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:shared-database --',
  summary:
    "A server's memory and start time by worker count, the workers sharing one processed copy of the database. Writes packages/bench/results/shared-database/shared-database.{md,json}.",
  flags: z
    .object({
      rows: numberFlag('rows', 1, 1_000_000).default(100_000).meta({ value: 'V', description: 'database rows' }),
      dim: numberFlag('dim', 1, 4096).default(384).meta({ value: 'D', description: 'vector dimension' }),
      workers: listFlagOf('worker count', numberFlag('workers', 1, 16))
        .default([1, 3])
        .meta({ value: 'list', description: 'pool worker counts, one server start each' }),
    })
    .strict(),
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

async function start(rows: number, dim: number, workers: number): Promise<StartRow> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sealbox-shared-database-bench-'))
  try {
    const { readyMs, rssMiB, peakRssMiB, warm, sharedDiagonalBytes } = await measureServerStart({
      name: 'shared-database',
      dataDir,
      workers,
      readyTimeoutMs: 60 * 60_000,
      env: {
        DATABASE: 'synthetic',
        SYNTHETIC_ROWS: String(rows),
        SYNTHETIC_DIM: String(dim),
        SEARCH_CACHE: 'false',
      },
    })
    const attached = warm.filter((line) => line.diagonals?.attached)
    const builders = warm.filter((line) => !line.diagonals?.attached)
    return {
      workers,
      readyMs,
      rssMiB,
      peakRssMiB,
      processed: builders.length,
      attached: attached.length,
      builderWarmMs: Math.max(0, ...builders.map((line) => line.warmMs)),
      attachWarmMs: Math.max(0, ...attached.map((line) => line.warmMs)),
      diagonalMiB: Math.round(sharedDiagonalBytes / 2 ** 20),
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

runProgram('benchmark:shared-database', CLI, async ({ rows, dim, workers }) => {
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
  const outDir = fileURLToPath(new URL('../../results/shared-database/', import.meta.url))
  await mkdir(outDir, { recursive: true })
  await writeFile(join(outDir, 'shared-database.md'), `${lines.join('\n')}\n`)
  await writeFile(
    join(outDir, 'shared-database.json'),
    `${JSON.stringify({ command, rows, dim, loadAverage: load, results }, null, 2)}\n`,
  )
  process.stdout.write(`${lines.join('\n')}\n`)
})
