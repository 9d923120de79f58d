import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/server/testing'
import { BenchError } from '../BenchError.ts'
import { median } from '../harness/stats.ts'
import { prepareCalibrationCase } from './calibrationCase.ts'
import type { CalibrationKind, CalibrationScheme } from './calibrationGrid.ts'

/**
 * The worker's share of an evaluate request: Server-Timing's `cpu`, the worker thread's
 * CPU time on the job (loading the inputs, running, saving the outputs). Unlike the wall
 * phases it is not inflated when other processes take the machine's cores.
 */
export const WORKER_CPU_PHASE = 'cpu'

/** One measured grid cell. */
export interface CalibrationCell {
  name: string
  scheme: CalibrationScheme
  polyModulusDegree: number
  kind: CalibrationKind
  units: number
  peakHeapBytes: number
  /** Median worker CPU milliseconds per request. */
  workerMs: number
  /** workerMs / units. */
  msPerUnit: number
  samples: number[]
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
  /** Called with a line of progress. */
  log?: (line: string) => void
}

/**
 * Runs every cell of the grid on a real server (one pool worker, so the worker runs
 * nothing else), one request at a time, and returns each cell's median worker time
 * per cost unit. A cell is measured after `warmup` requests (context, keys cached).
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
          if (cell.keyBytes) await client.putKeySet(keySet, cell.keyBytes)
          const call = {
            params: cell.params,
            program: cell.program,
            inputs: cell.inputs,
            ...(cell.keyBytes ? { keySet } : {}),
          }
          const samples: number[] = []
          for (let i = 0; i < plan.warmup + plan.requests; i++) {
            let result: Awaited<ReturnType<typeof client.evaluate>>
            try {
              result = await client.evaluate(call)
            } catch (error) {
              throw new BenchError('ENGINE_FAILED', `${cell.name}: ${String(error)}`, { cause: error })
            }
            if (i >= plan.warmup) samples.push(result.timing[WORKER_CPU_PHASE] ?? Number.NaN)
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
          })
          plan.log?.(
            `[calibrate] ${cell.name}: ${cell.units.toFixed(1)} units, ${workerMs.toFixed(1)} ms, ${(workerMs / cell.units).toFixed(3)} ms/unit`,
          )
        }
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
