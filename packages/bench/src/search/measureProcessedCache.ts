import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { encodeNpyFloat32, syntheticSearchDatabase } from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { z } from 'zod'
import { BenchError } from '../BenchError.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'

/*
 * First start against cached restart of a server serving a .npy database:
 *   pnpm --filter @sealbox/bench benchmark:processed-cache -- --rows 100000 --dim 384 --workers 1
 * Three starts on one DATA_DIR: without the cache (SEARCH_CACHE=false), the first start
 * with it (hashes the file, processes, writes), and the restart (reads every block back).
 * Each row: wall time from spawning `node src/main.ts` to /readyz ready, the slowest
 * worker's warm-up and processing as it logged them, and the server's peak RSS.
 */

const Flags = z.object({
  rows: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  dim: z.coerce.number().int().min(1).max(4096).default(384),
  workers: z.coerce.number().int().min(1).max(16).default(1),
})

interface StartRow {
  name: string
  readyMs: number
  warmMs: number
  processingMs: number
  cachedBlocks: number
  blocks: number
  outcome: string
  peakRssMiB: number
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

/** Peak resident set (VmHWM) of a process, MiB. */
function peakRssMiB(pid: number | undefined): number {
  const status = pid === undefined ? '' : readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024)
}

async function start(name: string, dataDir: string, env: Record<string, string>): Promise<StartRow> {
  const started = performance.now()
  const node = await ServerNode.start({
    name: 'processed-cache',
    dataDir,
    readyTimeoutMs: 30 * 60_000,
    env: { ...BENCH_SERVER_ENV, LOG_LEVEL: 'info', ...env },
  })
  const readyMs = performance.now() - started
  try {
    const peak = peakRssMiB(node.pid)
    const warm = (await node.log())
      .split('\n')
      .filter((line) => line.includes('worker warm'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const slowest = warm.reduce((a, b) => (Number(b.warmMs) > Number(a.warmMs) ? b : a))
    return {
      name,
      readyMs,
      warmMs: Number(slowest.warmMs),
      processingMs: Number(slowest.processingMs),
      cachedBlocks: Number(slowest.cachedBlocks),
      blocks: Number(slowest.blocks),
      outcome: String((slowest.cache as { outcome?: string } | undefined)?.outcome ?? 'no cache'),
      peakRssMiB: peak,
    }
  } finally {
    await node.stop()
  }
}

const { rows, dim, workers } = flags()
const dir = await mkdtemp(join(tmpdir(), 'sealbox-processed-cache-bench-'))
try {
  const path = join(dir, `synthetic-${rows}x${dim}.npy`)
  const database = syntheticSearchDatabase({ rows, dimension: dim, seed: 1 })
  await writeFile(path, encodeNpyFloat32(database.vectors, rows, dim))
  const dataDir = join(dir, 'data')
  const env = { DATABASE: path, WORKERS: String(workers) }
  const results = [
    await start('no cache (SEARCH_CACHE=false)', dataDir, { ...env, SEARCH_CACHE: 'false' }),
    await start('first start (processes, writes the cache)', dataDir, env),
    await start('restart (reads the cache)', dataDir, env),
  ]
  const lines = [
    `V = ${rows}, D = ${dim}, .npy float32, WORKERS=${workers}, EXECUTOR=pool; load average ${loadAverage().join(' / ')} (1 / 5 / 15 min) at the end`,
    '',
    '| start | ready (spawn → /readyz) | slowest worker warm | its processing | blocks from cache | cache | peak RSS |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${(r.readyMs / 1000).toFixed(1)} s | ${(r.warmMs / 1000).toFixed(1)} s | ${(r.processingMs / 1000).toFixed(1)} s | ${r.cachedBlocks}/${r.blocks} | ${r.outcome} | ${r.peakRssMiB} MiB |`,
    ),
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
} finally {
  await rm(dir, { recursive: true, force: true })
}
