// `@sealbox/he-core/client`: the HTTP contract and the client for a sealbox server.
// It never loads node-seal (a test proves it), so a page or a script that only talks to a
// server does not pay for the WASM engine; encrypting what it sends is the core entry's job.

// The client throws HeError; re-exported (the same class as the core entry's) so a caller can
// catch and match codes without importing the core entry, which loads SEAL.
export { HeError, type HeErrorJSON, isHeErrorJSON } from '../errors/HeError.ts'
export { HE_ERROR_CODES, type HeErrorCode, isHeErrorCode } from '../errors/heErrorCodes.ts'
export type {
  CallOptions,
  EvaluateCall,
  EvaluateCallResult,
  KeySetInfo,
  KeySetList,
  PutKeySetResult,
  RouteCallInput,
  RouteResult,
  SealboxClientOptions,
  SearchCallResult,
  ServerExecutorMode,
  ServerReadiness,
  ServerSearchConfig,
  ServerSession,
  ServerWork,
} from './clientTypes.ts'
// The contract's schemas and the types inferred from them (one zod module per route group).
export * from './contract/index.ts'
// Request/reply by id over a worker, a child process or a long poll (the server, the web app and bench use it).
export {
  PendingReplies,
  type PendingRepliesOptions,
  type PendingRequestOptions,
} from './PendingReplies.ts'
export {
  DEFAULT_RETRY_POLICY,
  RETRIED_STATUSES,
  type RetryPolicy,
  retryDelayMs,
} from './retryPolicy.ts'
export { SealboxClient } from './SealboxClient.ts'
export {
  type SearchDatabaseSource,
  SearchDatabaseSourceSchema,
  type ServedSearchDatabase,
  ServedSearchDatabaseSchema,
  searchDatabaseSourceLabel,
} from './servedSearchDatabase.ts'
export { parseServerTiming, type ServerTimingPhases } from './serverTiming.ts'
export type { SearchShardLayout } from './shardedSearch.ts'
