import type { ServerExecutorMode } from './contract/healthContract.ts'
import type { KeySetInfo } from './contract/keySetContract.ts'
import type { ServerTimingPhases } from './serverTiming.ts'

// The wire types are inferred from the contract's schemas; the rest are what the client's calls return.
export type { ServerExecutorMode, ServerReadiness } from './contract/healthContract.ts'
export type { KeySetInfo, KeySetList } from './contract/keySetContract.ts'
export type { ServerSearchConfig } from './contract/searchContract.ts'
export type { ServerSession } from './contract/sessionContract.ts'

/** What every work call returns next to its value: the server's phases and executor. */
export interface ServerWork {
  /** Phases from `Server-Timing` in ms (queue, keyload, deserialize, compute, serialize, total…). */
  timing: ServerTimingPhases
  /** Which executor ran the work (`x-sealbox-executor`). */
  executor: ServerExecutorMode | undefined
  /** Client-side wall time of the call, ms. */
  elapsedMs: number
}

/** `POST /api/v1/search`: one response envelope (bundle) per query, in order. */
export interface SearchCallResult extends ServerWork {
  responses: Uint8Array[]
  /** Server compute ms per query. */
  queryMs: number[]
}

/** What `evaluate` sends. */
export interface EvaluateCall {
  /** An he-core ParamsSpec. */
  params: unknown
  /** An he-core ProgramSpec. */
  program: unknown
  /** Input envelopes by program input name. */
  inputs: Record<string, Uint8Array>
  /** Key set with the relin / Galois keys the program needs. */
  keySet?: string
}

/** `POST /api/v1/evaluate`. */
export interface EvaluateCallResult extends ServerWork {
  /** Output envelopes by name. */
  outputs: Record<string, Uint8Array>
  /** he-core's per-step reports (time, level, size, noise budget or scale). */
  steps: unknown[]
}

/** `PUT /api/v1/keysets/:id`. */
export interface PutKeySetResult extends ServerWork {
  keySet: KeySetInfo
  /** True when it replaced an existing key set of that id. */
  replaced: boolean
}
