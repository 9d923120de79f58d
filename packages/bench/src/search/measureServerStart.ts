import { readdirSync, readFileSync } from 'node:fs'
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
  /** The search kernel the worker runs (`keySwitch`, `dyadic`, `seal`). */
  kernel?: string
}

/** One start of a real server serving a search database, measured until /readyz. */
export interface ServerStart {
  /** Spawning `node src/main.ts` → /readyz ready (ms). */
  readyMs: number
  /**
   * The server's resident set once ready (VmRSS of its process and every descendant: thread
   * workers are in the process, a process executor's workers are its children), MiB.
   */
  rssMiB: number
  /** Their peak resident sets (VmHWM), summed, MiB. */
  peakRssMiB: number
  /** Every worker's warm log line. */
  warm: WarmLine[]
  /** Bytes of the diagonals the workers share (`sealbox_search_diagonal_bytes{shared="true"}`). */
  sharedDiagonalBytes: number
}

/** A process and every descendant, from /proc (a process that ends meanwhile is skipped). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // Fields after the command's closing parenthesis: state, then the parent's pid.
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // Ended while /proc was listed.
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid)
  }
  return tree
}

/** A field of /proc/<pid>/status summed over the process and its descendants, MiB (NaN without a pid). */
export function treeStatusMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  if (pid === undefined) return Number.NaN
  let kB = 0
  for (const member of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${member}/status`, 'utf8')
      kB += Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0)
    } catch {
      // Ended meanwhile.
    }
  }
  return Math.round(kB / 1024)
}

/** A server's `worker warm` log lines, parsed. */
async function warmLines(node: ServerNode): Promise<WarmLine[]> {
  return (await node.log())
    .split('\n')
    .filter((line) => line.includes('worker warm'))
    .map((line) => JSON.parse(line) as WarmLine)
}

/** Options of a measured start. */
export interface ServerStartOptions {
  name: string
  dataDir: string
  workers: number
  env: Record<string, string>
  readyTimeoutMs: number
}

/**
 * Starts a real server (`BENCH_SERVER_ENV`, info logs, `EXECUTOR=pool` unless `env`
 * says otherwise) with `workers` workers on `dataDir`, waits for /readyz, reads its
 * memory, waits for every worker's warm line in its log (the log reaches the file after
 * /readyz answers) and reads its /metrics. The node keeps running: the caller stops it.
 * The slowest start (a million rows processed on a loaded machine) is bounded by
 * `readyTimeoutMs`.
 */
export async function startMeasuredServer(
  options: ServerStartOptions,
): Promise<{ node: ServerNode; start: ServerStart }> {
  const started = performance.now()
  const node = await ServerNode.start({
    name: options.name,
    dataDir: options.dataDir,
    readyTimeoutMs: options.readyTimeoutMs,
    env: { ...BENCH_SERVER_ENV, LOG_LEVEL: 'info', EXECUTOR: 'pool', WORKERS: String(options.workers), ...options.env },
  })
  const readyMs = performance.now() - started
  try {
    const rssMiB = treeStatusMiB(node.pid, 'VmRSS')
    const peakRssMiB = treeStatusMiB(node.pid, 'VmHWM')
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
    return { node, start: { readyMs, rssMiB, peakRssMiB, warm, sharedDiagonalBytes } }
  } catch (error) {
    await node.stop()
    throw error
  }
}

/** `startMeasuredServer`, then the server is stopped. */
export async function measureServerStart(options: ServerStartOptions): Promise<ServerStart> {
  const { node, start } = await startMeasuredServer(options)
  await node.stop()
  return start
}
