/**
 * The sealbox HTTP contract: one zod module per route group. The server validates,
 * serializes and documents its routes with these schemas and `SealboxClient` parses
 * replies with them, so the contract is written once. Nothing here imports node-seal.
 */

// The evaluate body is binary (a JSON header, then envelopes): its codec is part of the contract.
export {
  decodeEvaluateReply,
  decodeEvaluateRequest,
  type EvaluateReply,
  type EvaluateRequest,
  encodeEvaluateReply,
  encodeEvaluateRequest,
} from '../evaluateRequestBody.ts'
export {
  SEARCH_CATALOG_MAX_OFFSET,
  SEARCH_CATALOG_MAX_PAGE,
  type SearchCatalogPage,
  SearchCatalogPageSchema,
  type SearchCatalogQuery,
  SearchCatalogQuerySchema,
  searchCatalogRoute,
} from './catalogContract.ts'
export { type ErrorReply, ErrorReplySchema, type HeErrorBody, HeErrorBodySchema, heErrorBody } from './errorContract.ts'
export {
  EVALUATE_MAX_HEADER_BYTES,
  EVALUATE_MAX_INPUTS,
  EVALUATE_MEDIA_TYPE,
  type EvaluateReplyHeader,
  EvaluateReplyHeaderSchema,
  type EvaluateRequestHeader,
  EvaluateRequestHeaderSchema,
  evaluateRoute,
} from './evaluateContract.ts'
export {
  healthRoute,
  metricsRoute,
  readinessRoute,
  SERVER_EXECUTOR_MODES,
  type ServerExecutorMode,
  ServerExecutorModeSchema,
  type ServerHealth,
  ServerHealthSchema,
  type ServerReadiness,
  ServerReadinessSchema,
} from './healthContract.ts'
export { SEALBOX_HEADERS, TIMING_PHASES, TIMING_TOTAL, type TimingPhase } from './httpContract.ts'
export {
  deleteKeySetRoute,
  getKeySetRoute,
  KEY_SET_ID,
  type KeySetIdParams,
  KeySetIdParamsSchema,
  KeySetIdSchema,
  type KeySetInfo,
  KeySetInfoSchema,
  type KeySetList,
  KeySetListSchema,
  type KeySetQuery,
  KeySetQuerySchema,
  listKeySetsRoute,
  putKeySetRoute,
} from './keySetContract.ts'
export {
  API_PREFIX,
  BinaryBodySchema,
  type HttpMethod,
  NoBodySchema,
  type RouteContract,
  type RouteInput,
  type RouteReply,
} from './routeContract.ts'
export {
  acceptsDroppedBits,
  type SearchRequestHeaders,
  SearchRequestHeadersSchema,
  type SearchShardRoute,
  SearchShardRouteSchema,
  type ServerSearchConfig,
  ServerSearchConfigSchema,
  searchConfigRoute,
  searchRoute,
} from './searchContract.ts'
export { type SearchShardMap, SearchShardMapSchema, searchDeploymentConfigRoute } from './searchShardsContract.ts'
export { createSessionRoute, SERVER_MODES, type ServerSession, ServerSessionSchema } from './sessionContract.ts'
