import { SealboxClient, type TimingPhase } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/server/testing'
import { BenchError } from '../BenchError.ts'
import { median } from '../harness/stats.ts'
import { prepareCalibrationCase } from './calibrationCase.ts'
import type { CalibrationKind, CalibrationScheme } from './calibrationGrid.ts'
import { measureSearchCells } from './measureSearchCells.ts'

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

/** One measured grid cell. */
export interface CalibrationCell {
  name: string
  scheme: CalibrationScheme
  polyModulusDegree: number
  /** A program kind of the grid, or the server's own search: a query, or uploading its keys. */
  kind: CalibrationKind | 'search' | 'searchKeyUpload'
  units: number
  peakHeapBytes: number
  /** Median worker CPU milliseconds per request. */
  workerMs: number
  /** workerMs / units. */
  msPerUnit: number
  samples: number[]
  /** A key-upload cell: the bytes uploaded. */
  keyBytes?: number
  /** Median wall milliseconds of the worker's phases (a key upload: `deserialize` only). */
  phases: Record<string, number>
}

/** What a calibration run measures. */
export interface CalibrationPlan {
  schemes: readonly CalibrationScheme[]
  degrees: readonly number[]
  kinds: readonly CalibrationKind[]
  /** Steps each repeated op is written out as. */
  repeat: number
  requests: number
  warmup: number
  /** Also the server's own search: its key upload and one query (`measureSearchCells`). */
  search?: boolean
  /** Called with a line of progress. */
  log?: (line: string) => void
}

/**
 * Runs every cell of the grid on a real server (one pool worker, so the worker runs
 * nothing else), one request at a time, and returns each cell's median worker time
 * per cost unit. A cell is measured after `warmup` requests (context, keys cached).
 * With `search`, the server's own search follows (its key upload and a query).
 */
export async function measureCalibration(plan: CalibrationPlan): Promise<CalibrationCell[]> {
  const node = await ServerNode.start({
    name: 'calibration',
    env: {
      WORKERS: '1',
      EXECUTOR: 'pool',
      MAX_PROGRAM_COST: '1000000',
      TENANT_COST_BUDGET: '100000000',
      MAX_PROGRAM_STEPS: '1000',
    },
  })
  const cells: CalibrationCell[] = []
  try {
    const { client } = await new SealboxClient({ baseUrl: node.url }).createSession()
    for (const scheme of plan.schemes) {
      for (const degree of plan.degrees) {
        for (const kind of plan.kinds) {
          const cell = await prepareCalibrationCase(scheme, degree, kind, plan.repeat)
          const keySet = `${scheme}-${degree}-${kind}`.toLowerCase()
          const upload = kind === 'keyUpload'
          if (cell.keyBytes && !upload) await client.putKeySet(keySet, cell.keyBytes)
          const call = {
            params: cell.params,
            program: cell.program,
            inputs: cell.inputs,
            ...(cell.keyBytes ? { keySet } : {}),
          }
          // A key-upload cell times the upload itself (replacing the same key set each time).
          const request = () =>
            upload && cell.keyBytes ? client.putKeySet(keySet, cell.keyBytes) : client.evaluate(call)
          const samples: number[] = []
          const phases = Object.fromEntries(WORKER_PHASES.map((phase) => [phase, [] as number[]]))
          for (let i = 0; i < plan.warmup + plan.requests; i++) {
            let timing: Record<string, number>
            try {
              timing = (await request()).timing
            } catch (error) {
              throw new BenchError('ENGINE_FAILED', `${cell.name}: ${String(error)}`, { cause: error })
            }
            if (i < plan.warmup) continue
            samples.push(workerCpuMsOf(cell.name, i, timing))
            for (const phase of WORKER_PHASES) phases[phase]?.push(timing[phase] ?? 0)
          }
          const workerMs = median(samples)
          cells.push({
            name: cell.name,
            scheme,
            polyModulusDegree: degree,
            kind,
            units: cell.units,
            peakHeapBytes: cell.peakHeapBytes,
            workerMs,
            msPerUnit: workerMs / cell.units,
            samples,
            ...(upload ? { keyBytes: cell.keyBytes?.byteLength ?? 0 } : {}),
            phases: Object.fromEntries(Object.entries(phases).map(([phase, values]) => [phase, median(values)])),
          })
          plan.log?.(
            `[calibrate] ${cell.name}: ${cell.units.toFixed(1)} units, ${workerMs.toFixed(1)} ms, ${(workerMs / cell.units).toFixed(3)} ms/unit`,
          )
        }
      }
    }
    if (plan.search) {
      for (const cell of await measureSearchCells(client, plan)) {
        cells.push(cell)
        plan.log?.(
          `[calibrate] ${cell.name}: ${cell.units.toFixed(1)} units, ${cell.workerMs.toFixed(1)} ms, ${cell.msPerUnit.toFixed(3)} ms/unit`,
        )
      }
    }
  } finally {
    await node.stop()
  }
  return cells
}

/** The grid's spread: the largest ms per unit over the smallest. */
export function calibrationSpread(cells: readonly CalibrationCell[]): number {
  const rates = cells.map((cell) => cell.msPerUnit)
  return Math.max(...rates) / Math.min(...rates)
}
