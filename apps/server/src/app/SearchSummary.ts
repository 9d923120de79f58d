import { ServedSearchDatabaseSchema } from '@sealbox/he-core/client'
import { SearchClusteringSchema, SearchConfigSchema, SearchShardSchema } from '@sealbox/he-core/search'
import { z } from 'zod'
import { SearchKeyFormSchema } from '../executor/keySetRef.ts'

/**
 * What a warm worker reports about the search it serves: the main thread checks
 * requests against it (params, key set, Galois elements) before queueing any work.
 */
export const SearchSummarySchema = z.object({
  configId: z.string(),
  /** Params fingerprint of queries, keys and responses. */
  fingerprint: z.string(),
  /** Galois elements a query needs (empty: no evaluation keys at all). */
  galoisElements: z.array(z.number().int()),
  /** How a search's workers and the node's bytes cache hold those Galois keys (the kernel's words or SEAL's). */
  keyForm: SearchKeyFormSchema,
  /** Ciphertexts in one query. */
  queryCiphertexts: z.number().int(),
  /** he-core's full search config for clients (`GET /api/v1/search/config`). */
  config: SearchConfigSchema,
  /** The served database (its source typed, never a server path). */
  database: ServedSearchDatabaseSchema,
  /** Cluster-private mode: the public centroids and each cluster's rows (served with the config). */
  clustering: SearchClusteringSchema.optional(),
  /** SEARCH_SHARD: the shard of the database this node serves (its blocks and rows); `config` is the whole database's. */
  shard: SearchShardSchema.optional(),
})
export type SearchSummary = z.infer<typeof SearchSummarySchema>

/**
 * The public ids and metadata of the served database's rows (never vectors), reported
 * by a warm worker so the main thread can serve `GET /api/v1/search/catalog`. A row
 * without metadata is `null`.
 */
export const SearchCatalogSchema = z.object({
  ids: z.array(z.union([z.string(), z.number()])),
  metadata: z.array(z.unknown()).optional(),
})
export type ServedSearchCatalog = z.infer<typeof SearchCatalogSchema>
