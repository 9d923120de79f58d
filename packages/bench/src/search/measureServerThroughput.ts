import process from 'node:process'
import { ServerNode } from '@sealbox/testkit'
import { loadAverage } from '../core/machineInfo.ts'
import { threadCpuMs } from '../core/threadCpuMs.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { openBenchSession } from '../load/openBenchSession.ts'
import type { PreparedWorkload } from '../load/PreparedWorkload.ts'
import { runLoadCell } from '../load/runLoadCell.ts'
import { prepareSearchWorkload } from '../load/searchWorkload.ts'
import { cpuShares, readThreadCpu, type ThreadCpuSplit, threadCpuSpent } from '../load/threadCpu.ts'
import {
  type DirectThroughput,
  summarizeDirectThroughput,
  summarizeThroughputCell,
  type ThroughputCell,
} from './throughputStats.ts'

/** How much load each cell of the throughput section gets. */
export interface ThroughputPlan {
  /** `WORKERS` of each `pool` server. */
  workers: readonly number[]
  /** Closed-loop clients per cell. */
  concurrency: readonly number[]
  /** A cell stops after this many answered queries… */
  requests: number
  /** …or after this many seconds. */
  maxSeconds: number
  /** Direct (in-thread) queries, half before the servers and half after. */
  directSamples: number
}

/** The throughput section of the search benchmark: the default config through real servers. */
export interface ThroughputReport {
  /** The command that measured this section (it may differ from the rest of the report's). */
  command: string
  date: string
  cores: number
  loadAverageBefore: [number, number, number]
  loadAverageAfter: [number, number, number]
  plan: ThroughputPlan
  /** The served config (the server's defaults) and the query's sizes. */
  workload: { title: string; facts: Record<string, string | number> }
  direct: DirectThroughput
  cells: ThroughputCell[]
  /** Servers that failed to start or to answer (the other rows still count). */
  failures: { workers: number; message: string }[]
}

const UNTIMED_DIRECT = 3

/** Direct queries in this thread; what every thread of this process spent on them is added to `spent`. */
async function measureDirect(
  workload: PreparedWorkload,
  samples: number,
  into: { totals: number[]; cpus: number[]; spent: ThreadCpuSplit | undefined; unreadable: boolean },
): Promise<void> {
  for (let i = 0; i < UNTIMED_DIRECT; i++) workload.runDirect(i)
  const before = await readThreadCpu(process.pid)
  for (let i = 0; i < samples; i++) {
    const cpuStart = threadCpuMs()
    into.totals.push(workload.runDirect(i).totalMs)
    into.cpus.push(threadCpuMs() - cpuStart)
  }
  const after = await readThreadCpu(process.pid)
  if (!before || !after) {
    into.unreadable = true
    return
  }
  const spent = threadCpuSpent(before, after)
  const sum = into.spent ?? { workers: 0, eventLoop: 0, v8Helpers: 0, other: 0 }
  into.spent = {
    workers: sum.workers + spent.workers,
    eventLoop: sum.eventLoop + spent.eventLoop,
    v8Helpers: sum.v8Helpers + spent.v8Helpers,
    other: sum.other + spent.other,
  }
}

/**
 * Private search through the real server: for each `WORKERS` count a server process
 * (`EXECUTOR=pool`, the default search config, the server bench's settings), warmed up,
 * then one fresh load-generator process per client count sending the encrypted queries
 * through SealboxClient over HTTP. Next to it, the same queries run by he-core in this
 * thread (the direct figure), half before the servers and half after, so both see the
 * machine's load of the same minutes.
 */
export async function measureServerThroughput(options: {
  plan: ThroughputPlan
  command: string
  cores: number
  log: (line: string) => void
}): Promise<ThroughputReport> {
  const { plan, log } = options
  const date = new Date().toISOString()
  const loadAverageBefore = loadAverage()
  using workload = await prepareSearchWorkload()
  const direct = {
    totals: [] as number[],
    cpus: [] as number[],
    spent: undefined as ThreadCpuSplit | undefined,
    unreadable: false,
  }
  const half = Math.ceil(plan.directSamples / 2)
  log(`[throughput] direct: ${half} queries in this thread`)
  await measureDirect(workload, half, direct)
  const cells: ThroughputCell[] = []
  const failures: ThroughputReport['failures'] = []
  for (const workers of plan.workers) {
    log(`[throughput] pool server, ${workers} worker(s): starting`)
    let node: ServerNode | undefined
    try {
      node = await ServerNode.start({
        name: `search-throughput-pool-${workers}`,
        env: { ...BENCH_SERVER_ENV, EXECUTOR: 'pool', WORKERS: String(workers) },
      })
      const { token } = await openBenchSession(node, [workload], workers)
      for (const concurrency of plan.concurrency) {
        const startedAt = new Date().toISOString()
        const load = loadAverage()
        const pid = node.pid
        const threadsBefore = pid === undefined ? undefined : await readThreadCpu(pid)
        const result = await runLoadCell({
          baseUrl: node.url,
          token,
          workload,
          concurrency,
          warmupRequests: 2 * concurrency,
          requests: plan.requests,
          maxSeconds: plan.maxSeconds,
        })
        const threadsAfter = pid === undefined ? undefined : await readThreadCpu(pid)
        const checked = Object.entries(result.firstResponses)
        const cell: ThroughputCell = {
          workers,
          concurrency,
          startedAt,
          loadAverage: load,
          wallMs: result.wallMs,
          stoppedBy: result.stoppedBy,
          ...summarizeThroughputCell({
            samples: result.samples,
            wallMs: result.wallMs,
            serverCpuMs: result.serverCpuMs,
            workers,
            cores: options.cores,
          }),
          threadShares:
            (threadsBefore && threadsAfter && cpuShares(threadCpuSpent(threadsBefore, threadsAfter))) ?? null,
          verified: checked.length > 0 && checked.every(([i, answer]) => workload.verify(Number(i), answer)),
        }
        log(
          `             ${concurrency} clients: ${cell.qps.toFixed(1)} q/s, p50 ${cell.latencyP50.toFixed(1)} ms, server CPU ${cell.serverCpuMs?.toFixed(1) ?? '–'} ms per query; exact ${cell.verified}`,
        )
        cells.push(cell)
      }
    } catch (error) {
      // One failed server should not throw away the other rows: record it and go on.
      const message = error instanceof Error ? error.message : String(error)
      log(`  ! pool-${workers} failed: ${message}`)
      failures.push({ workers, message })
    } finally {
      await node?.stop()
    }
  }
  log(`[throughput] direct: ${plan.directSamples - half} more queries in this thread`)
  await measureDirect(workload, plan.directSamples - half, direct)
  return {
    command: options.command,
    date,
    cores: options.cores,
    loadAverageBefore,
    loadAverageAfter: loadAverage(),
    plan,
    workload: { title: workload.title, facts: workload.facts },
    direct: summarizeDirectThroughput(direct.totals, direct.cpus, direct.unreadable ? undefined : direct.spent),
    cells,
    failures,
  }
}
