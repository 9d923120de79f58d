import type { MachineInfo } from '../core/machineInfo.ts'
import { WORKLOADS, type Workload } from '../load/PreparedWorkload.ts'
import type { CostFloodRecord } from './CostFloodRecord.ts'
import { medianStats, type RunStats } from './runStats.ts'
import type { RowSpec, ServerBenchSettings } from './serverBenchFlags.ts'

/** Raw samples of one run, column-wise (ms, rounded to µs) to keep the JSON compact. */
export interface RunSamples {
  startMs: number[]
  latencyMs: number[]
  status: number[]
  computeMs: number[]
  executorMs: number[]
  queueMs: number[]
}

/** `/healthz` probes of one run, column-wise; `sentAtMs` is relative to the run's start. */
export interface RunProbes {
  fresh: { sentAtMs: number[]; latencyMs: number[]; ok: boolean[] }
  keepAlive: { sentAtMs: number[]; latencyMs: number[]; ok: boolean[] }
}

/** One run of one cell (row × workload × concurrency × repeat). */
export interface RunRecord {
  row: string
  workload: Workload
  concurrency: number
  repeat: number
  startedAt: string
  /** 1, 5 and 15 minute load averages when the run started (the machine is shared). */
  loadAverage: [number, number, number]
  stats: RunStats
  /** The answers checked decrypt to the plaintext oracle (null: nothing to check). */
  verified: boolean | null
  stoppedBy: 'requests' | 'time'
  wallMs: number
  errorCodes: Record<string, number>
  /** The server's event-loop histogram as read (resolution included), ms. */
  loopDelayRaw?: { p50: number; p90: number; p99: number; max: number; mean: number }
  samples: RunSamples
  probes?: RunProbes
}

/** One server process: start-up and its idle `/healthz` baseline. */
export interface ServerRunRecord {
  row: string
  repeat: number
  /** From spawn to `/readyz` 200 (workers warm, database processed), ms. */
  readyMs: number
  idle: RunStats
  loadAverage: [number, number, number]
  /** The prober's nice value (-5 when it was allowed a higher priority). */
  proberPriority: number
}

/** The medians of a cell over its repeats. */
export interface CellRecord {
  row: string
  workload: Workload
  concurrency: number
  runs: number
  stats: RunStats
  /** Every checked answer decrypted correctly in every run. */
  verified: boolean | null
  errors: number
}

/** The `/healthz` headline of one workload at its highest concurrency. */
export interface HealthHeadline {
  workload: Workload
  concurrency: number
  /** p99 (ms) of fresh-connection probes while the load ran, by row id. */
  freshP99: Record<string, number | null>
  keepAliveP99: Record<string, number | null>
  idleFreshP99: Record<string, number | null>
  /** The pool row compared with inline (`pool-1` if present). */
  pool: string | undefined
  /** inline p99 / pool p99 (fresh connections). */
  ratio: number | null
  /** Server-Timing compute at concurrency 1 (median ms), by row id. */
  computeP50: Record<string, number | null>
}

/** Everything one `npm run benchmark:server` run produced (the JSON file). */
export interface ServerBenchReport {
  kind: 'sealbox-server-table'
  version: 1
  command: string
  date: string
  durationMs: number
  machine: MachineInfo
  loadAverageBefore: [number, number, number]
  loadAverageAfter: [number, number, number]
  /** What the run did (its settings, less where it wrote). */
  settings: Omit<ServerBenchSettings, 'outDir'>
  /** Settings every server variant was started with (besides EXECUTOR and WORKERS). */
  serverEnv: Record<string, string>
  workloads: Array<{ workload: Workload; title: string; facts: Record<string, string | number> }>
  loopResolutionMs: number
  servers: ServerRunRecord[]
  /** Server runs that failed (the run goes on; their cells have fewer runs or none). */
  failures: Array<{ row: string; repeat: number; message: string }>
  runs: RunRecord[]
  cells: CellRecord[]
  headline: HealthHeadline[]
  /** Another tenant's search while one tenant floods maximum-cost programs (absent when skipped). */
  costFlood?: CostFloodRecord
}

/** Groups runs into cells (medians over repeats), in row, workload, concurrency order. */
export function buildCells(rows: readonly RowSpec[], runs: readonly RunRecord[]): CellRecord[] {
  const cells: CellRecord[] = []
  const order = new Map(rows.map((row, i) => [row.id, i]))
  const keys = [...new Set(runs.map((run) => `${run.row}|${run.workload}|${run.concurrency}`))]
  for (const key of keys) {
    const group = runs.filter((run) => `${run.row}|${run.workload}|${run.concurrency}` === key)
    const first = group[0]
    if (!first) continue
    const checks = group.map((run) => run.verified).filter((v): v is boolean => v !== null)
    cells.push({
      row: first.row,
      workload: first.workload,
      concurrency: first.concurrency,
      runs: group.length,
      stats: medianStats(group.map((run) => run.stats)),
      verified: checks.length === 0 ? null : checks.every(Boolean),
      errors: group.reduce((sum, run) => sum + (run.stats.errors ?? 0), 0),
    })
  }
  return cells.sort(
    (a, b) =>
      (order.get(a.row) ?? 0) - (order.get(b.row) ?? 0) ||
      WORKLOADS.indexOf(a.workload) - WORKLOADS.indexOf(b.workload) ||
      a.concurrency - b.concurrency,
  )
}

/** The cell of a row, workload and concurrency. */
export function cellOf(
  cells: readonly CellRecord[],
  row: string,
  workload: Workload,
  concurrency: number,
): CellRecord | undefined {
  return cells.find((c) => c.row === row && c.workload === workload && c.concurrency === concurrency)
}

/** `/healthz` p99 under load, pool vs inline, per workload at the highest concurrency. */
export function buildHeadline(
  rows: readonly RowSpec[],
  workloads: readonly Workload[],
  concurrency: readonly number[],
  cells: readonly CellRecord[],
  servers: readonly ServerRunRecord[],
): HealthHeadline[] {
  const top = Math.max(...concurrency)
  const low = Math.min(...concurrency)
  const serverRows = rows.filter((row) => row.kind === 'server')
  const pool = serverRows.find((row) => row.id === 'pool-1')?.id ?? serverRows.find((r) => r.id.startsWith('pool'))?.id
  return workloads.map((workload) => {
    const pick = (key: 'healthzFreshP99' | 'healthzKeepAliveP99') =>
      Object.fromEntries(serverRows.map((row) => [row.id, cellOf(cells, row.id, workload, top)?.stats[key] ?? null]))
    const freshP99 = pick('healthzFreshP99')
    const inline = freshP99.inline ?? null
    const pooled = pool === undefined ? null : (freshP99[pool] ?? null)
    return {
      workload,
      concurrency: top,
      freshP99,
      keepAliveP99: pick('healthzKeepAliveP99'),
      idleFreshP99: Object.fromEntries(
        serverRows.map((row) => [
          row.id,
          medianStats(servers.filter((s) => s.row === row.id).map((s) => s.idle)).healthzFreshP99,
        ]),
      ),
      pool,
      ratio: inline !== null && pooled !== null && pooled > 0 ? inline / pooled : null,
      computeP50: Object.fromEntries(
        rows.map((row) => [row.id, cellOf(cells, row.id, workload, low)?.stats.computeP50 ?? null]),
      ),
    }
  })
}
