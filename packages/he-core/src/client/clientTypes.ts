import type { ServerExecutorMode } from './contract/healthContract.ts'
import type { KeySetInfo } from './contract/keySetContract.ts'
import type { EvaluateReply, EvaluateRequest } from './evaluateRequestBody.ts'
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

/** What `evaluate` sends: params, program, input envelopes by program input name, the key set. */
export type EvaluateCall = EvaluateRequest

/** `POST /api/v1/evaluate`. */
export interface EvaluateCallResult extends EvaluateReply, ServerWork {}

/** `PUT /api/v1/keysets/:id`. */
export interface PutKeySetResult extends ServerWork {
  keySet: KeySetInfo
  /** True when it replaced an existing key set of that id. */
  replaced: boolean
}
