import { setTimeout as sleep } from 'node:timers/promises'
import { loadAverage } from '../core/machineInfo.ts'
import type { PreparedWorkload } from '../load/PreparedWorkload.ts'
import { directColumns } from './runColumns.ts'
import { directRunStats } from './runStats.ts'
import type { RunRecord } from './ServerBenchReport.ts'

/** Untimed calls first: JIT, SEAL's memory pool, the processed database. */
const WARMUP_CALLS = 3

/**
 * Idle time between calls, like a one-client loop over loopback. Back-to-back calls
 * would make Direct the one CPU hog among the rows: on a busy machine Linux shares a
 * hog's core with every other runnable task, while a server worker that sleeps between
 * requests runs each job with a fresh time slice, and Direct would look slower than the
 * servers it is the baseline for.
 */
const GAP_MS = 2

/**
 * The Direct row: the server's job for the same request bodies, run by he-core in
 * this process, one call at a time (concurrency 1), no HTTP and no executor.
 * Stops after `requests` calls or `durationSeconds`, like a load cell.
 */
export async function measureDirect(
  prepared: PreparedWorkload,
  repeat: number,
  limits: { requests: number; durationSeconds: number },
): Promise<RunRecord> {
  const startedAt = new Date().toISOString()
  const load = loadAverage()
  for (let i = 0; i < WARMUP_CALLS; i++) {
    prepared.runDirect(i)
    await sleep(GAP_MS)
  }
  const timings = []
  const starts: number[] = []
  const begin = performance.now()
  const deadline = begin + limits.durationSeconds * 1000
  let stoppedBy: RunRecord['stoppedBy'] = 'requests'
  for (let i = 0; i < limits.requests; i++) {
    if (performance.now() >= deadline) {
      stoppedBy = 'time'
      break
    }
    starts.push(performance.now() - begin)
    timings.push(prepared.runDirect(i))
    await sleep(GAP_MS)
  }
  const wallMs = performance.now() - begin
  return {
    row: 'direct',
    workload: prepared.workload,
    concurrency: 1,
    repeat,
    startedAt,
    loadAverage: load,
    stats: directRunStats(timings, wallMs),
    verified: null,
    stoppedBy,
    wallMs,
    errorCodes: {},
    samples: directColumns(timings, starts),
  }
}
