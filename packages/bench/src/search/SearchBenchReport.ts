import type { SealOpCalibration } from './calibrateSealOps.ts'
import type { BatchMeasurement } from './measureBatch.ts'
import type { LoadSplit } from './measureLoadSplit.ts'
import type { RotationCosts } from './measureRotations.ts'
import type { SearchMeasurement } from './measureSearch.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import type { ThreadedMeasurement } from './threadedSearch.ts'

/** Everything one `benchmark:search` run produced. */
export interface SearchBenchReport {
  command: string
  date: string
  machine: { cpuModel: string; cores: number; node: string; os: string; loadAverage: number[] }
  samples: { warmup: number; samples: number }
  /** Versions of the native side, when the native twins ran. */
  native: Record<string, string> | undefined
  headline: SearchMeasurement
  /** The headline configs, WASM and their native twins. */
  headlineRows: SearchMeasurement[]
  /** Where one default query's load (and save) time goes, by query compression. */
  loadSplit: LoadSplit[]
  /** The shape of Apple's PNNS example, both baby-step modes, WASM and native. */
  apple: SearchMeasurement[]
  /** Single rotations: he-core's key-switching kernel, SEAL in WebAssembly, native SEAL. */
  rotations?: RotationCosts
  schemes: SearchMeasurement[]
  tradeOff: SearchMeasurement[]
  forms: SearchMeasurement[]
  large: SearchMeasurement | undefined
  threads: ThreadedMeasurement[]
  batch: BatchMeasurement | undefined
  /** Single operations timed at the start and at the end of the run. */
  calibration: SealOpCalibration[]
  /** The default config through real server processes (absent: not measured). */
  throughput?: ThroughputReport
}
