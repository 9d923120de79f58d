import { z } from 'zod'
import { SearchClusteringSchema } from '../../search/SearchClustering.ts'
import { SearchConfigSchema } from '../../search/SearchConfigSchema.ts'
import { SearchShardSchema } from '../../search/searchShard.ts'
import { ServedSearchDatabaseSchema } from '../servedSearchDatabase.ts'
import { SEALBOX_HEADERS } from './httpContract.ts'
import { KeySetQuerySchema } from './keySetContract.ts'
import { API_PREFIX, BinaryBodySchema, type RouteContract } from './routeContract.ts'

/**
 * `GET /api/v1/search/config`: he-core's `SearchConfig` plus the params fingerprint
 * and facts about the server's database.
 */
/** One shard of a sharded deployment, as a client reaches it: its path prefix on the proxy. */
export const SearchShardRouteSchema = SearchShardSchema.extend({
  /** Path prefix of the shard's nodes on the proxy, e.g. `/shards/0`. */
  prefix: z.string().regex(/^\/[A-Za-z0-9/_-]*$/),
}).strict()
export type SearchShardRoute = z.infer<typeof SearchShardRouteSchema>

export const ServerSearchConfigSchema = SearchConfigSchema.extend({
  /** Params fingerprint of queries, keys and responses. */
  fingerprint: z.string(),
  database: ServedSearchDatabaseSchema,
  /**
   * Cluster-private mode (`clusters` in the config): the public centroids and each
   * cluster's rows. `PrivateSearchClient.create` reads it from the config it is given.
   */
  clustering: SearchClusteringSchema.optional(),
  /**
   * A node started with SEARCH_SHARD=i/S: the shard it serves. The rest of the config
   * (configId, rows, blocks) is the whole database's, which every shard shares.
   */
  shard: SearchShardSchema.optional(),
  /** Filled in by `SealboxClient.searchConfig` behind a sharded proxy: every shard and its prefix. */
  shards: z.array(SearchShardRouteSchema).optional(),
}).strict()
export type ServerSearchConfig = z.infer<typeof ServerSearchConfigSchema>

/** Public (no bearer token): what a client needs to make keys and queries. */
export const searchConfigRoute = {
  method: 'GET',
  path: `${API_PREFIX}/search/config`,
  tags: ['search'],
  summary: 'The search config clients need to make keys and queries',
  description:
    "Parameters, D, V, scale, baby step, Galois steps and the configId; `galoisSteps` empty means no evaluation keys are needed. In cluster-private mode, also `clusters` (the layout) and `clustering` (public centroids and each cluster's rows).",
  response: { 200: ServerSearchConfigSchema },
} as const satisfies RouteContract

/**
 * The search request's headers: `x-sealbox-dropped-bits: accept` opts in to response blocks
 * that drop low-order bits of c0 (SEARCH.md "Smaller responses"); without it every bit is
 * sent, as to a client that predates them. Any other value is refused (INVALID_INPUT).
 */
export const SearchRequestHeadersSchema = z.looseObject({
  [SEALBOX_HEADERS.droppedBits]: z.enum(['accept']).optional(),
})
/** A search request's headers as the route reads them. */
export type SearchRequestHeaders = z.infer<typeof SearchRequestHeadersSchema>

/** Whether a search request's headers opt in to dropped low-order bits. */
export function acceptsDroppedBits(headers: SearchRequestHeaders): boolean {
  return headers[SEALBOX_HEADERS.droppedBits] === 'accept'
}

export const searchRoute = {
  method: 'POST',
  path: `${API_PREFIX}/search`,
  tags: ['search'],
  summary: 'Evaluate one or several encrypted queries',
  description:
    'Body: one query bundle per query, back to back (application/octet-stream). `?keySet=` names the uploaded Galois keys when the config needs them. `x-sealbox-dropped-bits: accept` lets packed response blocks drop the low-order bits of c0 the noise allows (`SealboxClient.search` sends it); without it every bit is sent, as older clients need. Reply (application/octet-stream): one response bundle per query, back to back, in order; `x-sealbox-query-ms` has the compute time of each.',
  querystring: KeySetQuerySchema,
  headers: SearchRequestHeadersSchema,
  consumes: ['application/octet-stream'],
  produces: ['application/octet-stream'],
  idempotent: true,
  response: { 200: BinaryBodySchema },
} as const satisfies RouteContract
