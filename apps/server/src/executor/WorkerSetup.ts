import { resolve } from 'node:path'
import { parseSearchShard } from '@sealbox/he-core/search'
import { z } from 'zod'
import type { ServerConfig } from '../config/ServerConfig.ts'
import { type KeyStoreLocation, KeyStoreLocationSchema } from '../store/KeyStore.ts'

/** The database a worker processes at warm-up. */
export const DatabaseSourceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('synthetic'), rows: z.number().int(), dim: z.number().int(), seed: z.number().int() }),
  z.object({ type: z.literal('demo') }),
  z.object({ type: z.literal('file'), path: z.string() }),
])
export type DatabaseSource = z.infer<typeof DatabaseSourceSchema>

/** Everything a worker (thread, child process or inline runner) needs to warm up. Plain data. */
export const WorkerSetupSchema = z.object({
  store: KeyStoreLocationSchema,
  keyCacheBytes: z.number().int().nonnegative(),
  /** KEY_STORE_KERNEL_FORMS: a store-tier miss of a kernel-form search reads the store's kernel form first. */
  storeKernelForms: z.boolean().default(true),
  sealErrorRecycle: z.number().int().positive(),
  /** Replace the worker after a job that leaves its WASM heap above this many bytes. */
  heapRecycleBytes: z.number().int().positive(),
  maxPolyDegree: z.number().int(),
  maxProgramSteps: z.number().int(),
  maxQueriesPerSearch: z.number().int(),
  faultInjection: z.boolean(),
  database: DatabaseSourceSchema,
  /**
   * Where the processed database is kept between starts, and the database's content hash
   * (computed once by the main process): unset, every start processes the database.
   */
  searchCache: z.object({ dir: z.string(), contentHash: z.string() }).optional(),
  /** SEARCH_SHARD: process and serve only this shard of the database (unset: all of it). */
  shard: z.object({ index: z.number().int(), count: z.number().int() }).optional(),
  search: z.object({
    /** Unset: he-core's default profile for the database's dimension. */
    profile: z.string().optional(),
    scheme: z.enum(['bgv', 'bfv']),
    metric: z.enum(['cosine', 'dot']),
    babySteps: z.enum(['client', 'server']).optional(),
    babyStep: z.number().int().optional(),
    hoistBabySteps: z.boolean().optional(),
    /** Cluster-private mode: C, or `auto`; unset or 0: exact search. */
    clusters: z.union([z.number().int(), z.literal('auto')]).optional(),
  }),
})
export type WorkerSetup = z.infer<typeof WorkerSetupSchema>

/** The worker setup that follows from the server configuration. */
export function workerSetupFrom(config: ServerConfig, store: KeyStoreLocation): WorkerSetup {
  // Workers and child processes may not share our working directory: pass absolute paths.
  return {
    store,
    keyCacheBytes: config.KEY_CACHE_BYTES,
    storeKernelForms: config.KEY_STORE_KERNEL_FORMS,
    sealErrorRecycle: config.SEAL_ERROR_RECYCLE,
    heapRecycleBytes: config.WORKER_HEAP_RECYCLE_BYTES,
    maxPolyDegree: config.MAX_POLY_DEGREE,
    maxProgramSteps: config.MAX_PROGRAM_STEPS,
    maxQueriesPerSearch: config.MAX_QUERIES_PER_SEARCH,
    faultInjection: config.FAULT_INJECTION,
    database:
      config.DATABASE === 'synthetic'
        ? { type: 'synthetic', rows: config.SYNTHETIC_ROWS, dim: config.SYNTHETIC_DIM, seed: config.SYNTHETIC_SEED }
        : config.DATABASE === 'demo'
          ? { type: 'demo' }
          : { type: 'file', path: resolve(config.DATABASE) },
    ...(config.SEARCH_SHARD === undefined ? {} : { shard: parseSearchShard(config.SEARCH_SHARD) }),
    search: {
      ...(config.SEARCH_PROFILE === undefined ? {} : { profile: config.SEARCH_PROFILE }),
      scheme: config.SEARCH_SCHEME,
      metric: config.SEARCH_METRIC,
      ...(config.SEARCH_BABY_STEPS === undefined ? {} : { babySteps: config.SEARCH_BABY_STEPS }),
      ...(config.SEARCH_BABY_STEP === undefined ? {} : { babyStep: config.SEARCH_BABY_STEP }),
      ...(config.SEARCH_HOIST_BABY_STEPS ? { hoistBabySteps: true } : {}),
      ...(config.SEARCH_CLUSTERS === 0 ? {} : { clusters: config.SEARCH_CLUSTERS }),
    },
  }
}
