import type { HeErrorJSON } from '../errors/HeError.ts'
import type { SearchCatalogPage } from './contract/catalogContract.ts'
import type { ServerExecutorMode } from './contract/healthContract.ts'
import type { KeySetInfo } from './contract/keySetContract.ts'
import type { RouteContract, RouteInput, RouteReply } from './contract/routeContract.ts'
import type { EvaluateReply, EvaluateRequest } from './evaluateRequestBody.ts'
import type { RetryPolicy } from './retryPolicy.ts'
import type { ServerTimingPhases } from './serverTiming.ts'
import type { SearchShardLayout } from './shardedSearch.ts'

// The wire types are inferred from the contract's schemas; the rest are what the client's calls return.
export type { ServerExecutorMode, ServerReadiness } from './contract/healthContract.ts'
export type { KeySetInfo, KeySetList } from './contract/keySetContract.ts'
export type { ServerSearchConfig } from './contract/searchContract.ts'
export type { ServerSession } from './contract/sessionContract.ts'

/** Options of a `SealboxClient`. */
export interface SealboxClientOptions {
  /** The server, e.g. `http://localhost:8080` (a path prefix is kept). */
  baseUrl: string
  /** Bearer token; local-mode servers hand one out (`createSession`). */
  token?: string
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch
  /** Ask for an executor per request (only servers with ALLOW_EXECUTOR_OVERRIDE accept). */
  executor?: ServerExecutorMode
  /**
   * Catalog pages already downloaded, by URL, with their ETags: asked again with
   * If-None-Match and not downloaded twice. Shared by the clients `with()` makes.
   */
  catalogCache?: Map<string, { etag: string; page: SearchCatalogPage }>
  /**
   * Retries of idempotent calls (reads, key-set PUT and DELETE, search, evaluate) after a
   * 502, 503 or 504 or a failed connection, honouring Retry-After with jittered backoff
   * (`DEFAULT_RETRY_POLICY`: 4 tries). `false`: every failure is thrown at once.
   */
  retry?: Partial<RetryPolicy> | false
  /**
   * What `searchConfig` learned of a sharded deployment (its shards and their prefixes).
   * Shared by the clients `with()` makes; leave unset.
   */
  deployment?: { read?: boolean; layout?: SearchShardLayout }
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal
}

/** What `SealboxClient.call` takes for route `R`: its inferred input, extra request headers and a signal. */
export type RouteCallInput<R extends RouteContract> = RouteInput<R> &
  CallOptions & {
    headers?: Record<string, string>
  }

/**
 * What `SealboxClient.call` returns for route `R`: one of the statuses its contract
 * answers with and that status's body (checked against its schema), the reply's headers,
 * and the work the server reported.
 */
export type RouteResult<R extends RouteContract> = RouteReply<R> & { headers: Headers; work: ServerWork }

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
  /** Server compute ms per query (behind a sharded proxy: of the slowest shard). */
  queryMs: number[]
  /** Behind a sharded proxy: each shard's wall time as the client saw it, ms (of the shards that answered). */
  shardMs?: number[]
  /**
   * A sharded search with `partial: true`: the shards that did not answer, the rows and
   * blocks left out of `responses`, and each one's error. Absent when every shard answered.
   */
  missingShards?: {
    index: number
    rows: { start: number; end: number }
    blocks: { start: number; end: number }
    error: HeErrorJSON
  }[]
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
