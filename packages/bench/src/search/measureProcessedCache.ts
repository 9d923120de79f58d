import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { encodeNpyFloat32, syntheticSearchDatabase } from '@sealbox/he-core/search'
import { z } from 'zod'
import { defineCli, runProgram } from '../core/defineCli.ts'
import { numberFlag } from '../core/flagSchemas.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { markdownTable } from '../core/markdownTable.ts'
import { measureServerStart, type ServerStart } from './measureServerStart.ts'

/*
 * First start against cached restart of a server serving a .npy database:
 *   pnpm --filter @sealbox/bench benchmark:processed-cache -- --rows 100000 --dim 384 --workers 1
 * Three starts on one DATA_DIR: without the cache (SEARCH_CACHE=false), the first start
 * with it (hashes the file, processes, writes), and the restart (reads every block back).
 * Each row: wall time from spawning `node src/main.ts` to /readyz ready, the slowest
 * worker's warm-up and processing as it logged them, and the server's peak RSS.
 */

const CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:processed-cache --',
  summary:
    "A server's first start against its restart with the processed cache, on a synthetic .npy database; prints a Markdown table.",
  flags: z
    .object({
      rows: numberFlag('rows', 1, 1_000_000).default(100_000).meta({ value: 'V', description: 'database rows' }),
      dim: numberFlag('dim', 1, 4096).default(384).meta({ value: 'D', description: 'vector dimension' }),
      workers: numberFlag('workers', 1, 16).default(1).meta({ value: 'N', description: 'pool workers' }),
    })
    .strict(),
})

runProgram('benchmark:processed-cache', CLI, async (flags) => {
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-processed-cache-bench-'))
  try {
    const path = join(dir, `synthetic-${flags.rows}x${flags.dim}.npy`)
    const database = syntheticSearchDatabase({ rows: flags.rows, dimension: flags.dim, seed: 1 })
    await writeFile(path, encodeNpyFloat32(database.vectors, flags.rows, flags.dim))
    const start = (env: Record<string, string>) =>
      measureServerStart({
        name: 'processed-cache',
        dataDir: join(dir, 'data'),
        readyTimeoutMs: 30 * 60_000,
        workers: flags.workers,
        env: { DATABASE: path, ...env },
      })
    const starts: Array<[string, ServerStart]> = [
      ['no cache (SEARCH_CACHE=false)', await start({ SEARCH_CACHE: 'false' })],
      ['first start (processes, writes the cache)', await start({})],
      ['restart (reads the cache)', await start({})],
    ]
    const seconds = (ms: number | undefined) => `${(Number(ms) / 1000).toFixed(1)} s`
    const table = markdownTable(
      [
        { heading: 'start' },
        { heading: 'ready (spawn → /readyz)', align: 'right' },
        { heading: 'slowest worker warm', align: 'right' },
        { heading: 'its processing', align: 'right' },
        { heading: 'blocks from cache', align: 'right' },
        { heading: 'cache' },
        { heading: 'peak RSS', align: 'right' },
      ],
      starts.map(([name, start]) => {
        const slowest = start.warm.reduce((a, b) => (b.warmMs > a.warmMs ? b : a))
        return [
          name,
          seconds(start.readyMs),
          seconds(slowest.warmMs),
          seconds(slowest.processingMs),
          `${slowest.cachedBlocks}/${slowest.blocks}`,
          slowest.cache?.outcome ?? 'no cache',
          `${start.peakRssMiB} MiB`,
        ]
      }),
    )
    const facts = `V = ${flags.rows}, D = ${flags.dim}, .npy float32, WORKERS=${flags.workers}, EXECUTOR=pool; load average ${loadAverage().join(' / ')} (1 / 5 / 15 min) at the end`
    process.stdout.write(`${facts}\n\n${table}\n`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
