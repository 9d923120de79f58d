import type { SearchConfig } from '../search/SearchConfig.ts'
import type { ServedSearchDatabase } from './servedSearchDatabase.ts'
import type { ServerTimingPhases } from './serverTiming.ts'

/** The executors a sealbox server can run work on. */
export type ServerExecutorMode = 'pool' | 'inline' | 'process'

/** A key set as the server lists it. */
export interface KeySetInfo {
  tenant: string
  /** The name used in the URL. */
  id: string
  /** The secret key's id (queries must carry the same one). */
  keySetId: string
  fingerprint: string
  configId?: string
  kinds: Array<'relinKeys' | 'galoisKeys'>
  galoisElements: number[]
  polyModulusDegree?: number
  label?: string
  bytes: number
  sha256: string
  createdAt: string
  updatedAt: string
}

/** `GET /api/v1/keysets`. */
export interface KeySetList {
  tenant: string
  keySets: KeySetInfo[]
  usage: { bytes: number; quotaBytes: number; keySets: number; maxKeySets: number }
}

/** `POST /api/v1/session` (local mode). */
export interface ServerSession {
  token: string
  tenant: string
  mode: 'local' | 'production'
}

/** `GET /readyz`. */
export interface ServerReadiness {
  ready: boolean
  /** Present (true) while the server's event loop is overloaded: other calls would answer 503. */
  overloaded?: boolean
  executors: Array<{
    mode: ServerExecutorMode
    size: number
    warm: number
    running: number
    queued: number
    replacements: number
    default: boolean
  }>
}

/**
 * `GET /api/v1/search/config`: he-core's `SearchConfig` (plain JSON) plus the params
 * fingerprint and facts about the server's database.
 */
export interface ServerSearchConfig extends SearchConfig {
  /** Params fingerprint of queries, keys and responses. */
  fingerprint: string
  database: ServedSearchDatabase
}

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
