import type { CalibrationKind, CalibrationScheme } from './calibrationGrid.ts'

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

/** What a cell is, before it is measured. */
export type CalibrationCellSpec = Omit<
  CalibrationCell,
  'workerMs' | 'msPerUnit' | 'fastestMsPerUnit' | 'samples' | 'phases'
>

/** One cell's worker CPU samples and wall phase samples. */
export interface WorkerSamples {
  samples: number[]
  phases: Record<string, number[]>
}
