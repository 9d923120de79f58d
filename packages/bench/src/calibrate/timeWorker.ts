import type { TimingPhase } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import type { WorkerSamples } from './CalibrationCell.ts'

/**
 * The worker's share of an evaluate request: Server-Timing's `cpu`, the worker thread's
 * CPU time on the job (loading the inputs, running, saving the outputs). Unlike the wall
 * phases it is not inflated when other processes take the machine's cores.
 */
export const WORKER_CPU_PHASE = 'cpu'

/**
 * The worker CPU milliseconds of one calibration request, from its Server-Timing. The
 * server reads an exact per-thread clock, so a real job's time is above 0; a missing or
 * zero reading would make the cell's rate 0 or infinite and the grid's spread
 * meaningless, so it stops the run naming the cell and the request instead.
 */
export function workerCpuMsOf(cell: string, request: number, timing: Record<string, number>): number {
  const ms = timing[WORKER_CPU_PHASE]
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new BenchError(
      'ENGINE_FAILED',
      `${cell}: request ${request} reported no worker CPU time (Server-Timing has no \`${WORKER_CPU_PHASE}\`): the server has no exact per-thread clock here (Linux's /proc/thread-self/schedstat), and the calibration needs one`,
      { details: { cell, request, timing } },
    )
  }
  if (ms <= 0) {
    throw new BenchError(
      'ENGINE_FAILED',
      `${cell}: request ${request} reported ${ms} ms of worker CPU time; a real job takes more than 0`,
      { details: { cell, request, timing } },
    )
  }
  return ms
}

/** The worker's wall phases of a request, reported per cell to show where its time goes (loading, running, saving). */
export const WORKER_PHASES = ['deserialize', 'compute', 'serialize'] as const satisfies readonly TimingPhase[]

/**
 * Sends `warmup` unrecorded then `requests` recorded requests, one at a time, and
 * returns the worker CPU time of each recorded one and its wall phases.
 */
export async function timeWorker(
  name: string,
  request: (i: number) => Promise<{ timing: Record<string, number> }>,
  plan: { warmup: number; requests: number },
): Promise<WorkerSamples> {
  const measured: WorkerSamples = {
    samples: [],
    phases: Object.fromEntries(WORKER_PHASES.map((phase) => [phase, [] as number[]])),
  }
  for (let i = 0; i < plan.warmup + plan.requests; i++) {
    let timing: Record<string, number>
    try {
      timing = (await request(i)).timing
    } catch (error) {
      throw new BenchError('ENGINE_FAILED', `${name}: ${String(error)}`, { cause: error })
    }
    if (i < plan.warmup) continue
    measured.samples.push(workerCpuMsOf(name, i, timing))
    for (const phase of WORKER_PHASES) measured.phases[phase]?.push(timing[phase] ?? 0)
  }
  return measured
}
