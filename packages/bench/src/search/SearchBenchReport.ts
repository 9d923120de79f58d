import type { SealOpCalibration } from './calibrateSealOps.ts'
import type { BatchMeasurement } from './measureBatch.ts'
import type { LoadSplit } from './measureLoadSplit.ts'
import type { RotationCosts } from './measureRotations.ts'
import type { SearchMeasurement } from './measureSearch.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import type { SearchTarget } from './searchTargets.ts'
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
  /** The shape of Apple's PNNS example: the default, client-side baby steps, one ciphertext with the model's g; WASM and native. */
  apple: SearchMeasurement[]
  /** Native's candidate configs at the main shape not measured elsewhere (each beside its WASM twin). */
  candidates: SearchMeasurement[]
  /** Native's candidate configs at Apple's shape not measured elsewhere (each beside its WASM twin). */
  appleCandidates: SearchMeasurement[]
  /** Each shape's default and kernel rows over native's best of every native row at that shape. */
  targets: SearchTarget[]
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
