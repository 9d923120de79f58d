import { SealboxClient, type TimingPhase } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/testkit'
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
  /**
   * The fastest request's worker CPU milliseconds per unit: the job's own cost, since other
   * work on the machine (a busy SMT sibling, the host) only ever adds CPU time to a job.
   */
  fastestMsPerUnit: number
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
  /** Sweeps of the whole grid (default 1); each cell gets `warmup` + `requests` requests per sweep. */
  passes?: number
  /** Also the server's own search: its key upload and one query (`measureSearchCells`). */
  search?: boolean
  /** Called with a line of progress. */
  log?: (line: string) => void
}

/** One cell's worker CPU samples and wall phase samples. */
export interface WorkerSamples {
  samples: number[]
  phases: Record<string, number[]>
}

/**
 * Sends `warmup` unrecorded then `requests` recorded requests, one at a time, and
 * returns the worker CPU time of each recorded one and its wall phases.
 */
export async function timeWorker(
  name: string,
  request: (i: number) => Promise<{ timing: Record<string, number> }>,
  plan: Pick<CalibrationPlan, 'warmup' | 'requests'>,
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

/** What a cell is, before it is measured. */
export type CalibrationCellSpec = Omit<
  CalibrationCell,
  'workerMs' | 'msPerUnit' | 'fastestMsPerUnit' | 'samples' | 'phases'
>

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
