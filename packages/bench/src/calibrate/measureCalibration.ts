import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/testkit'
import { median } from '../core/stats.ts'
import type { CalibrationCell, CalibrationCellSpec, WorkerSamples } from './CalibrationCell.ts'
import { prepareCalibrationCase } from './calibrationCase.ts'
import type { CalibrationKind, CalibrationScheme } from './calibrationGrid.ts'
import { measureSearchCells } from './measureSearchCells.ts'
import { timeWorker } from './timeWorker.ts'

/** What a calibration run measures. */
export interface CalibrationPlan {
  schemes: readonly CalibrationScheme[]
  degrees: readonly number[]
  kinds: readonly CalibrationKind[]
  /** Steps each repeated op is written out as. */
  repeat: number
  requests: number
  warmup: number
  /** Sweeps of the whole grid (default 1); each cell gets `warmup` + `requests` requests per sweep. */
  passes?: number
  /** Also the server's own search: its key upload and one query (`measureSearchCells`). */
  search?: boolean
  /** Called with a line of progress. */
  log?: (line: string) => void
}

/** The cells measured so far, each with the samples of every pass joined. */
class CalibrationTally {
  readonly #cells = new Map<string, { spec: CalibrationCellSpec; measured: WorkerSamples }>()

  /** Adds one pass's samples of a cell; returns the cell as measured so far. */
  add(spec: CalibrationCellSpec, measured: WorkerSamples): CalibrationCell {
    const before = this.#cells.get(spec.name)?.measured
    const joined: WorkerSamples = {
      samples: [...(before?.samples ?? []), ...measured.samples],
      phases: Object.fromEntries(
        Object.entries(measured.phases).map(([phase, values]) => [
          phase,
          [...(before?.phases[phase] ?? []), ...values],
        ]),
      ),
    }
    this.#cells.set(spec.name, { spec, measured: joined })
    return cellOf(spec, joined)
  }

  cells(): CalibrationCell[] {
    return [...this.#cells.values()].map(({ spec, measured }) => cellOf(spec, measured))
  }
}

function cellOf(spec: CalibrationCellSpec, { samples, phases }: WorkerSamples): CalibrationCell {
  const workerMs = median(samples)
  return {
    ...spec,
    workerMs,
    msPerUnit: workerMs / spec.units,
    fastestMsPerUnit: Math.min(...samples) / spec.units,
    samples,
    phases: Object.fromEntries(Object.entries(phases).map(([phase, values]) => [phase, median(values)])),
  }
}

/**
 * Runs every cell of the grid on a real server (one pool worker, so the worker runs
 * nothing else), one request at a time, and returns each cell's median worker time
 * per cost unit. The grid is swept `passes` times, each cell after `warmup` requests in
 * every pass (its context and keys cached again if the worker evicted them meanwhile):
 * a burst of load on the shared machine then lands on a few samples of many cells, not
 * on every sample of a few. With `search`, the server's own search (its key upload and
 * a query) ends each pass.
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
  const tally = new CalibrationTally()
  const log = (cell: CalibrationCell) =>
    plan.log?.(
      `[calibrate] ${cell.name}: ${cell.units.toFixed(1)} units, ${cell.workerMs.toFixed(1)} ms, ${cell.msPerUnit.toFixed(3)} ms/unit (${cell.samples.length} samples)`,
    )
  const cases = new Map<string, Awaited<ReturnType<typeof prepareCalibrationCase>>>()
  try {
    const { client } = await new SealboxClient({ baseUrl: node.url }).createSession()
    for (let pass = 0; pass < (plan.passes ?? 1); pass++) {
      for (const scheme of plan.schemes) {
        for (const degree of plan.degrees) {
          for (const kind of plan.kinds) {
            const keySet = `${scheme}-${degree}-${kind}`.toLowerCase()
            const upload = kind === 'keyUpload'
            let cell = cases.get(keySet)
            if (!cell) {
              cell = await prepareCalibrationCase(scheme, degree, kind, plan.repeat)
              cases.set(keySet, cell)
              if (cell.keyBytes && !upload) await client.putKeySet(keySet, cell.keyBytes)
            }
            const { keyBytes } = cell
            const call = {
              params: cell.params,
              program: cell.program,
              inputs: cell.inputs,
              ...(keyBytes ? { keySet } : {}),
            }
            // A key-upload cell times the upload itself (replacing the same key set each time).
            const measured = await timeWorker(
              cell.name,
              () => (upload && keyBytes ? client.putKeySet(keySet, keyBytes) : client.evaluate(call)),
              plan,
            )
            const spec: CalibrationCellSpec = {
              name: cell.name,
              scheme,
              polyModulusDegree: degree,
              kind,
              units: cell.units,
              peakHeapBytes: cell.peakHeapBytes,
              ...(upload ? { keyBytes: keyBytes?.byteLength ?? 0 } : {}),
            }
            log(tally.add(spec, measured))
          }
        }
      }
      if (plan.search) {
        for (const { spec, measured } of await measureSearchCells(client, plan)) log(tally.add(spec, measured))
      }
    }
  } finally {
    await node.stop()
  }
  return tally.cells()
}

/**
 * The grid's spread: the largest ms per unit over the smallest, by each cell's median
 * request (`'median'`: the model's error and this run's noise) or its fastest
 * (`'fastest'`: the model's error alone).
 */
export function calibrationSpread(cells: readonly CalibrationCell[], by: 'median' | 'fastest' = 'median'): number {
  const rates = cells.map((cell) => (by === 'median' ? cell.msPerUnit : cell.fastestMsPerUnit))
  return Math.max(...rates) / Math.min(...rates)
}
