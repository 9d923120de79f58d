import { ParamsSpec, ProgramSpec } from '@sealbox/he-core'
import {
  KeySetInfoSchema,
  SERVER_EXECUTOR_MODES,
  SearchDatabaseSourceSchema,
  ServerExecutorModeSchema,
  ServerReadinessSchema,
  ServerSearchConfigSchema,
  ServerSessionSchema,
  TIMING_PHASES,
  TIMING_TOTAL,
} from '@sealbox/he-core/client'
import { z } from 'zod'

/*
 * The server half of the worker protocol: the worker talks to the sealbox server
 * (same origin by default) with he-core's SealboxClient, so ciphertexts, keys and
 * the search client's secret key never pass through the page.
 */

const id = z.number().int().nonnegative()
const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes (Uint8Array)')
const numbers = z.union([z.array(z.bigint()), z.array(z.number())])
/** Which executor to ask for; `default` sends no override. */
export const executorChoice = z.enum(['default', ...SERVER_EXECUTOR_MODES])
export type ExecutorChoice = z.infer<typeof executorChoice>
/** Server-Timing phases in ms, by the contract's names. */
const phases = z.partialRecord(z.enum([...TIMING_PHASES, TIMING_TOTAL]), z.number())

export const serverConnectRequest = z.object({ type: z.literal('serverConnect'), id, baseUrl: z.string() })
export const serverUploadKeysRequest = z.object({
  type: z.literal('serverUploadKeys'),
  id,
  /** Key-set name on the server. */
  name: z.string(),
  /** Relinearization and/or Galois key envelopes (never a secret key: the worker refuses one). */
  envelopes: z.array(bytes).min(1),
})
export const serverEvaluateRequest = z.object({
  type: z.literal('serverEvaluate'),
  id,
  params: ParamsSpec,
  program: ProgramSpec,
  inputs: z.record(z.string(), bytes),
  keySet: z.string().optional(),
  executor: executorChoice,
})
/** Row `row` of the server's synthetic database (public: made from its seed), to use as a query. */
export const searchRowRequest = z.object({ type: z.literal('searchRow'), id, row: z.number().int().min(0) })
export const searchRowReply = z.object({ type: z.literal('searchRow'), id, vector: z.array(z.number()) })

export const serverSearchRequest = z.object({
  type: z.literal('serverSearch'),
  id,
  vector: z.array(z.number()),
  k: z.number().int().min(1).max(100),
  executor: executorChoice,
})

/** What the search demo needs to know about the server's search: the served config's fields, as it types them. */
export const searchFacts = ServerSearchConfigSchema.pick({
  configId: true,
  rows: true,
  dimension: true,
  scheme: true,
  polyModulusDegree: true,
  plainModulus: true,
  metric: true,
  scale: true,
  babySteps: true,
  babyStep: true,
  queryCiphertexts: true,
  galoisSteps: true,
}).extend({
  /** How many blocks the database is processed in. */
  blocks: z.number(),
  /** Where the rows come from (show it with he-core's `searchDatabaseSourceLabel`). */
  source: SearchDatabaseSourceSchema.optional(),
})
export type SearchFacts = z.infer<typeof searchFacts>

/** One executor as `/readyz` lists it. */
export const executorStatus = ServerReadinessSchema.shape.executors.element.pick({
  mode: true,
  size: true,
  warm: true,
  running: true,
  queued: true,
  default: true,
})

export const serverConnectedReply = z.object({
  type: z.literal('serverConnected'),
  id,
  baseUrl: z.string(),
  tenant: z.string(),
  mode: ServerSessionSchema.shape.mode,
  ready: z.boolean(),
  executors: z.array(executorStatus),
  search: searchFacts.optional(),
  /** Why the search config could not be read (e.g. still warming up). */
  searchError: z.string().optional(),
})
export type ServerConnected = z.infer<typeof serverConnectedReply>

/** Where the time of one server call went: the server's phases and the client's view. */
export const serverWork = z.object({
  phases,
  executor: ServerExecutorModeSchema.optional(),
  /** Client wall time of the HTTP call. */
  elapsedMs: z.number(),
  bytesUp: z.number(),
  bytesDown: z.number(),
})
export type ServerWorkReport = z.infer<typeof serverWork>

export const serverKeysUploadedReply = z.object({
  type: z.literal('serverKeysUploaded'),
  id,
  name: z.string(),
  bytes: z.number(),
  kinds: KeySetInfoSchema.shape.kinds,
  replaced: z.boolean(),
  work: serverWork,
})

export const remoteOutput = z.object({
  name: z.string(),
  preview: numbers.optional(),
  level: z.number().optional(),
  size: z.number().optional(),
  noiseBudget: z.number().optional(),
  scaleBits: z.number().optional(),
  bytes: z.number(),
})
export type RemoteOutput = z.infer<typeof remoteOutput>

export const serverEvaluatedReply = z.object({
  type: z.literal('serverEvaluated'),
  id,
  outputs: z.array(remoteOutput),
  /** Server compute time of each step, ms, as its evaluator reported. */
  stepMs: z.array(z.number()),
  work: serverWork,
  heapBytes: z.number().optional(),
})

export const searchHit = z.object({
  rank: z.number(),
  row: z.number(),
  id: z.union([z.string(), z.number()]),
  score: z.number(),
  similarity: z.number(),
  /** The row's public metadata from the server's catalog (JSON), when the database has any. */
  metadata: z.unknown().optional(),
})

export const serverSearchedReply = z.object({
  type: z.literal('serverSearched'),
  id,
  hits: z.array(searchHit),
  minNoiseBudget: z.number(),
  /** Rows of the plaintext top-k when the database is public (synthetic), to check the encrypted result. */
  oracleRows: z.array(z.number()).optional(),
  /** Client-side phases, ms: key generation (first search only), key upload, encryption, decryption. */
  client: z.object({
    keygenMs: z.number().optional(),
    keyUploadMs: z.number().optional(),
    keyBytes: z.number().optional(),
    encryptMs: z.number(),
    decryptMs: z.number(),
  }),
  queryMs: z.array(z.number()),
  work: serverWork,
})
export type ServerSearched = z.infer<typeof serverSearchedReply>

export const SERVER_REQUESTS = [
  serverConnectRequest,
  serverUploadKeysRequest,
  serverEvaluateRequest,
  serverSearchRequest,
  searchRowRequest,
] as const
export const SERVER_REPLIES = [
  serverConnectedReply,
  serverKeysUploadedReply,
  serverEvaluatedReply,
  serverSearchedReply,
  searchRowReply,
] as const
export const SERVER_REPLY_TYPE = {
  serverConnect: 'serverConnected',
  serverUploadKeys: 'serverKeysUploaded',
  serverEvaluate: 'serverEvaluated',
  serverSearch: 'serverSearched',
  searchRow: 'searchRow',
} as const
