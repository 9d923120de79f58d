import { readFileSync } from 'node:fs'
import { ServerNode, waitFor } from '@sealbox/testkit'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { parsePrometheus, sumMetric } from '../load/scrapeMetrics.ts'

/** A worker's `worker warm` log line: how long its warm-up took and how it got the database. */
export interface WarmLine {
  warmMs: number
  processingMs?: number
  cachedBlocks?: number
  blocks?: number
  cache?: { outcome?: string }
  diagonals?: { bytes: number; attached: boolean }
}

/** One start of a real server serving a search database, measured until /readyz. */
export interface ServerStart {
  /** Spawning `node src/main.ts` → /readyz ready (ms). */
  readyMs: number
  /** The server process's resident set once ready (VmRSS; worker threads are in the same process), MiB. */
  rssMiB: number
  /** Its peak resident set (VmHWM), MiB. */
  peakRssMiB: number
  /** Every worker's warm log line. */
  warm: WarmLine[]
  /** Bytes of the diagonals the workers share (`sealbox_search_diagonal_bytes{shared="true"}`). */
  sharedDiagonalBytes: number
}

/** A field of /proc/<pid>/status, MiB. */
function statusMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  const status = pid === undefined ? '' : readFileSync(`/proc/${pid}/status`, 'utf8')
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024)
}

/** A server's `worker warm` log lines, parsed. */
async function warmLines(node: ServerNode): Promise<WarmLine[]> {
  return (await node.log())
    .split('\n')
    .filter((line) => line.includes('worker warm'))
    .map((line) => JSON.parse(line) as WarmLine)
}

/**
 * Starts a real server (`BENCH_SERVER_ENV`, info logs, `EXECUTOR=pool` unless `env`
 * says otherwise) with `workers` workers on `dataDir`, waits for /readyz, reads its
 * memory, waits for every worker's warm line in its log (the log reaches the file after
 * /readyz answers), reads its /metrics, and stops it. The slowest start (a million rows
 * processed on a loaded machine) is bounded by `readyTimeoutMs`.
 */
export async function measureServerStart(options: {
  name: string
  dataDir: string
  workers: number
  env: Record<string, string>
  readyTimeoutMs: number
}): Promise<ServerStart> {
  const started = performance.now()
  const node = await ServerNode.start({
    name: options.name,
    dataDir: options.dataDir,
    readyTimeoutMs: options.readyTimeoutMs,
    env: { ...BENCH_SERVER_ENV, LOG_LEVEL: 'info', EXECUTOR: 'pool', WORKERS: String(options.workers), ...options.env },
  })
  const readyMs = performance.now() - started
  try {
    const rssMiB = statusMiB(node.pid, 'VmRSS')
    const peakRssMiB = statusMiB(node.pid, 'VmHWM')
    let warm: WarmLine[] = []
    await waitFor(
      `${options.workers} "worker warm" log lines`,
      async () => {
        warm = await warmLines(node)
        return warm.length >= options.workers
      },
      60_000,
    )
    const metrics = parsePrometheus(await (await fetch(`${node.url}/metrics`)).text())
    const sharedDiagonalBytes = sumMetric(metrics, 'sealbox_search_diagonal_bytes', { shared: 'true' })
    return { readyMs, rssMiB, peakRssMiB, warm, sharedDiagonalBytes }
  } finally {
    await node.stop()
  }
}
