import { setTimeout as sleep } from 'node:timers/promises'
import { ServerNode } from '@sealbox/testkit'
import { ChildTask } from '../core/ChildTask.ts'
import { loadAverage } from '../core/machineInfo.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { errorCodes } from '../load/clientFailure.ts'
import { openBenchSession } from '../load/openBenchSession.ts'
import type { PreparedWorkload } from '../load/PreparedWorkload.ts'
import { runLoadCell } from '../load/runLoadCell.ts'
import type { LoadResult, ProbeJob, ProbeResult } from '../load/serverBenchProtocol.ts'
import { probeColumns, requestColumns, roundUs } from './runColumns.ts'
import { probesIn, serverRunStats } from './runStats.ts'
import type { RunRecord, ServerRunRecord } from './ServerBenchReport.ts'
import type { RowSpec } from './serverBenchFlags.ts'

const HEALTH_PROBER = new URL('./healthProber.ts', import.meta.url)

const PROBE_TIMEOUT_MS = 10_000

/** What one server row measures, and how it reports progress. */
export interface ServerRowPlan {
  row: Extract<RowSpec, { kind: 'server' }>
  repeat: number
  workloads: readonly PreparedWorkload[]
  concurrency: readonly number[]
  requests: number
  durationSeconds: number
  probeHz: number
  idleMs: number
  /** Called before each cell starts. */
  onCell?: (workload: PreparedWorkload, concurrency: number) => void
  log?: (line: string) => void
}

const epochNow = () => performance.timeOrigin + performance.now()

/**
 * One server variant, once: a real server process (`apps/server/src/main.ts` on a
 * free loopback port), ready when `/readyz` says its workers are warm; a session and
 * the key sets; warm-up; the prober starts, an idle window is probed, then every
 * workload × concurrency cell runs in a fresh load-generator process. Stopped at the end.
 */
export async function measureServerRow(plan: ServerRowPlan): Promise<{ server: ServerRunRecord; runs: RunRecord[] }> {
  const { row } = plan
  const spawnedAt = performance.now()
  const node = await ServerNode.start({
    name: `bench-${row.id}`,
    env: { ...BENCH_SERVER_ENV, EXECUTOR: row.executor, WORKERS: String(row.workers) },
  })
  const readyMs = performance.now() - spawnedAt
  let prober: ChildTask<ProbeResult> | undefined
  try {
    const { token } = await openBenchSession(node, plan.workloads, row.workers)

    const cells = plan.workloads.length * plan.concurrency.length
    const probeJob: ProbeJob = { baseUrl: node.url, hz: plan.probeHz, timeoutMs: PROBE_TIMEOUT_MS }
    const proberLimitMs = plan.idleMs + cells * (2 * plan.durationSeconds + 90) * 1000 + 120_000
    prober = ChildTask.start<ProbeResult>('/healthz prober', HEALTH_PROBER, probeJob, proberLimitMs)
    await prober.ready
    await sleep(100)
    const idleWindow = { startEpochMs: epochNow(), endEpochMs: 0 }
    await sleep(plan.idleMs)
    idleWindow.endEpochMs = epochNow()

    const loads: Array<{
      workload: PreparedWorkload
      concurrency: number
      result: LoadResult
      startedAt: string
      load: [number, number, number]
    }> = []
    for (const workload of plan.workloads) {
      for (const concurrency of plan.concurrency) {
        plan.onCell?.(workload, concurrency)
        const startedAt = new Date().toISOString()
        const load = loadAverage()
        const result = await runLoadCell({
          baseUrl: node.url,
          token,
          workload,
          concurrency,
          warmupRequests: Math.max(2, concurrency),
          requests: plan.requests,
          maxSeconds: plan.durationSeconds,
        })
        loads.push({ workload, concurrency, result, startedAt, load })
      }
    }
    prober.stop()
    const { samples: probes, priority: proberPriority } = await prober.result

    const runs = loads.map(({ workload, concurrency, result, startedAt, load }): RunRecord => {
      const inWindow = probesIn(probes, result.window)
      const checked = Object.entries(result.firstResponses)
      const verified = checked.length === 0 ? false : checked.every(([i, answer]) => workload.verify(Number(i), answer))
      if (!verified)
        plan.log?.(`  ! ${row.id} ${workload.workload} c=${concurrency}: an answer did not decrypt correctly`)
      return {
        row: row.id,
        workload: workload.workload,
        concurrency,
        repeat: plan.repeat,
        startedAt,
        loadAverage: load,
        stats: serverRunStats(result, inWindow),
        verified,
        stoppedBy: result.stoppedBy,
        wallMs: roundUs(result.wallMs),
        errorCodes: errorCodes(result.samples),
        ...(result.loopDelay ? { loopDelayRaw: result.loopDelay } : {}),
        samples: requestColumns(result.samples),
        probes: probeColumns(inWindow, result.window.startEpochMs),
      }
    })
    const idle = serverRunStats(
      { samples: [], window: idleWindow, wallMs: 0, stoppedBy: 'requests', firstResponses: {}, loopDelay: undefined },
      probesIn(probes, idleWindow),
    )
    return {
      server: { row: row.id, repeat: plan.repeat, readyMs, idle, loadAverage: loadAverage(), proberPriority },
      runs,
    }
  } finally {
    prober?.kill()
    await node.stop()
  }
}
