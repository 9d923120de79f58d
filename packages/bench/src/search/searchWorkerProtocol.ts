import type { SearchBlockRange, SearchConfigInput, SearchEvaluationTimings } from '@sealbox/he-core/search'

/** What a search worker is started with. */
export interface SearchWorkerData {
  config: SearchConfigInput
  /** The synthetic database to build (each worker builds the same one from the seed). */
  database: { rows: number; dimension: number; seed: number }
  blocks: SearchBlockRange
  /** The client's Galois keys as it uploads them (null: the config needs none), loaded once by the worker. */
  keys: Uint8Array | null
  wasmModule: WebAssembly.Module | undefined
}

/** Main thread → worker. */
export type SearchWorkerRequest = { type: 'query'; id: number; query: Uint8Array } | { type: 'close' }

/** Worker → main thread. */
export type SearchWorkerReply =
  | { type: 'ready'; processMs: number; blocks: number[] }
  | { type: 'response'; id: number; response: Uint8Array; timings: SearchEvaluationTimings }
  | { type: 'error'; id?: number; message: string }
