import { HE_ERROR_CODES, StepReportSchema } from '@sealbox/he-core'
import { z } from 'zod'
import { SearchCatalogSchema, SearchSummarySchema } from '../app/SearchSummary.ts'
import { KeyBlobRefSchema, KeySetFactsSchema } from '../store/KeyStore.ts'
import { KeyUseSchema } from './KeyUse.ts'
import { KeySetRefSchema, LoadedKeySetRefSchema, SearchKeyFormSchema } from './keySetRef.ts'

/*
 * Everything that crosses a thread or a socket between the HTTP layer and the code
 * that runs HE work: discriminated unions keyed on `type`, validated with zod on
 * arrival. Binary fields are Uint8Arrays (structured clone keeps them; the process
 * socket uses v8 serialization, which does too).
 */

const bytes = z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'expected bytes (Uint8Array)')

/** Evaluate encrypted queries against the server's processed database. */
export const SearchJobSchema = z.object({
  type: z.literal('search'),
  /** The tenant's stored evaluation keys, when the search config needs Galois keys. */
  keys: KeyBlobRefSchema.optional(),
  /** The key-set id every query ciphertext must carry (from the stored record). */
  keySetId: z.string().optional(),
  /**
   * The keys from the node's bytes cache, sent when the worker does not hold them: the
   * kernel form when the search runs in the key-switching kernel, else SEAL's full form.
   */
  keyBytes: bytes.optional(),
  /** The only Galois elements to load of the key set (what a query uses); default all of it. */
  galoisElements: z.array(z.number().int().positive()).min(1).optional(),
  /**
   * How the search holds them (the warm worker's `SearchSummary.keyForm`): what the
   * scheduler places and prices the keys by. The worker holds its own index's form.
   */
  keyForm: SearchKeyFormSchema.optional(),
  /** One envelope or bundle per query. */
  queries: z.array(bytes).min(1),
  /** Evaluate only these blocks (one part of a query split across the node's workers); all by default. */
  blocks: z.object({ start: z.number().int().nonnegative(), end: z.number().int().positive() }).optional(),
  /**
   * The request accepts response blocks that drop low-order bits (`x-sealbox-dropped-bits:
   * accept`); absent, every bit is sent, which a client that predates them needs.
   */
  droppedBits: z.boolean().optional(),
})

/** Run an he-core program on uploaded inputs. */
export const EvaluateJobSchema = z.object({
  type: z.literal('evaluate'),
  /**
   * The encryption parameters (an he-core ParamsSpec). Validated once in the worker, by
   * `parseParams` (zod and SEAL's rules, with messages naming the field), not here too.
   */
  params: z.unknown(),
  /** The program as sent: validated once in the worker, by `analyzeProgram` (zod and the program's rules). */
  program: z.unknown(),
  /** Input envelopes by name. */
  inputs: z.record(z.string(), bytes),
  keys: KeyBlobRefSchema.optional(),
  keySetId: z.string().optional(),
  keyBytes: bytes.optional(),
  /** The only keys to load of the key set (what the program uses); default all of it. */
  keyUse: KeyUseSchema.optional(),
})

/** Check an upload by loading it into SEAL before it is stored. */
export const InspectKeysJobSchema = z.object({
  type: z.literal('inspectKeys'),
  bytes,
  /**
   * The uploading tenant: keys for the server's search are then converted once, here,
   * into the form a search uses, for the node's bytes cache (a tenant's first search
   * after an upload loads no SEAL object and expands no seed).
   */
  tenant: z.string().min(1).optional(),
})

/** Test-only faults (FAULT_INJECTION): prove that failures are contained. */
export const FAULTS = ['crash', 'hang', 'outOfMemory', 'sealError', 'slow', 'hold'] as const
export type Fault = (typeof FAULTS)[number]
export const FaultJobSchema = z.object({
  type: z.literal('fault'),
  fault: z.enum(FAULTS),
  /** How long `slow` keeps the worker busy (default SLOW_FAULT_MS); the longest `hold` waits for its gate. */
  ms: z.number().int().min(1).max(120_000).optional(),
  /** `hold`: the file whose creation releases the job (the server names it, never the client). */
  gatePath: z.string().min(1).optional(),
})

export const WorkerJobSchema = z.discriminatedUnion('type', [
  SearchJobSchema,
  EvaluateJobSchema,
  InspectKeysJobSchema,
  FaultJobSchema,
])
export type WorkerJob = z.infer<typeof WorkerJobSchema>
export type SearchJob = z.infer<typeof SearchJobSchema>
export type EvaluateJob = z.infer<typeof EvaluateJobSchema>
export type InspectKeysJob = z.infer<typeof InspectKeysJobSchema>

const HeErrorJSONSchema = z.object({
  code: z.enum(HE_ERROR_CODES),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  /** The cause as text (SEAL's words, an I/O error): logged with the request id, never answered. */
  cause: z.string().optional(),
})

export const JobResultSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('searchResult'),
    /** One response envelope per query, in order. */
    responses: z.array(bytes),
    /** Per-query compute milliseconds. */
    queryMs: z.array(z.number()),
  }),
  z.object({
    type: z.literal('evaluateResult'),
    outputs: z.record(z.string(), bytes),
    /** What each step did (he-core's step report). */
    steps: z.array(StepReportSchema),
  }),
  z.object({ type: z.literal('keysInspected'), facts: KeySetFactsSchema, sha256: z.string() }),
  z.object({ type: z.literal('faultSurvived') }),
  z.object({ type: z.literal('failed'), error: HeErrorJSONSchema }),
])
export type JobResult = z.infer<typeof JobResultSchema>
/** A job that failed: its error, as the worker sent it. */
export type FailedJobResult = Extract<JobResult, { type: 'failed' }>

/**
 * The result each job type answers with when it succeeds, written once: the hub checks a
 * reply against it, and `JobResultOf` gives a route the result type of the job it sent.
 */
export const RESULT_OF_JOB = {
  search: 'searchResult',
  evaluate: 'evaluateResult',
  inspectKeys: 'keysInspected',
  fault: 'faultSurvived',
} as const satisfies Record<WorkerJob['type'], Exclude<JobResult['type'], 'failed'>>

type ResultByJob = { [K in WorkerJob['type']]: Extract<JobResult, { type: (typeof RESULT_OF_JOB)[K] }> }

/** What job `J` answers with when it succeeds. */
export type JobResultOf<J extends WorkerJob> = ResultByJob[J['type']]

/** Whether `result` is what `job` answers with when it succeeds (`RESULT_OF_JOB`). */
export function answers<J extends WorkerJob>(job: J, result: JobResult): result is JobResultOf<J> {
  return result.type === RESULT_OF_JOB[job.type]
}

/** Counters of one worker (thread, child process, or the main thread for inline). */
export const WorkerStatsSchema = z.object({
  /** `thread-3`, `process-12345`, `inline`. */
  workerId: z.string(),
  threadId: z.number().int(),
  pid: z.number().int(),
  jobs: z.number().int(),
  sealExceptions: z.number().int(),
  heapBytes: z.number().optional(),
  cacheBytes: z.number(),
  cacheEntries: z.number().int(),
  cacheHits: z.number().int(),
  cacheMisses: z.number().int(),
  cacheEvictions: z.number().int(),
})
export type WorkerStats = z.infer<typeof WorkerStatsSchema>

const ms = z.number().nonnegative()
export const PhaseTimingsSchema = z.object({
  keyload: ms.optional(),
  keydeserialize: ms.optional(),
  deserialize: ms.optional(),
  compute: ms.optional(),
  serialize: ms.optional(),
  /** Set by the scheduler: dispatch-to-reply time the worker did not spend on the job. */
  transfer: ms.optional(),
  /** Set by the scheduler: the worker's CPU time on the job (not a wall-clock phase). */
  cpu: ms.optional(),
})

/** Where a job's evaluation keys came from: the worker's cache, the node's bytes cache, the store. */
export const KEY_TIERS = ['worker', 'bytes', 'store'] as const
export type KeyTier = (typeof KEY_TIERS)[number]

/**
 * What a store-tier miss read: `kernel` — the kernel form the store keeps beside the
 * upload (a copy, no SEAL load); `seal` — SEAL's bytes, loaded and converted.
 */
export const STORE_KEY_FORMS = ['kernel', 'seal'] as const
export type StoreKeyForm = (typeof STORE_KEY_FORMS)[number]

export const WorkerReplySchema = z.object({
  result: JobResultSchema,
  timings: PhaseTimingsSchema,
  /** Whether this job's evaluation keys came from the worker's cache. */
  keyCache: z.enum(['hit', 'miss', 'none']),
  /** Which tier served the keys (absent when the job used none). */
  keyTier: z.enum(KEY_TIERS).optional(),
  /** Keys read from the store (or just uploaded), in the form the node's bytes cache keeps for their use. */
  fullFormKeys: z
    .object({
      keySet: KeySetRefSchema,
      bytes,
      /** When the bytes are a search's kernel form: its name in the durable store (`kernelFormName`). */
      storeForm: z.string().optional(),
    })
    .optional(),
  /** On a store-tier miss, the form the store served. */
  storeForm: z.enum(STORE_KEY_FORMS).optional(),
  /** On a store-tier miss, the store's kernel form failed its checks (SEAL's bytes served instead). */
  kernelFormDamaged: z.literal(true).optional(),
  /** Every key set the worker's cache holds deserialized, sent when they changed. */
  cachedKeys: z.array(LoadedKeySetRefSchema).optional(),
  /** Wall time of the job inside the worker, ms. */
  runMs: z.number().nonnegative().optional(),
  /** CPU time of the worker thread on the job, ms: exact, above 0; absent where the system has no exact per-thread clock. */
  cpuMs: z.number().nonnegative().optional(),
  worker: WorkerStatsSchema,
  /** Set when this worker must be replaced after this job (and why). */
  recycle: z.enum(['sealExceptions', 'outOfMemory', 'heapGrown', 'fault']).optional(),
})
export type WorkerReply = z.infer<typeof WorkerReplySchema>

/** How far a worker's processing of the database is (sent while it warms up). */
export const ProcessingProgressSchema = z.object({
  blocksDone: z.number().int(),
  blocks: z.number().int(),
  fromCache: z.number().int(),
  milliseconds: z.number(),
})
export type ProcessingProgress = z.infer<typeof ProcessingProgressSchema>

/** How the processed-database cache served a warm-up. */
export const ProcessedCacheReportSchema = z.object({
  outcome: z.enum(['hit', 'written', 'rebuilt', 'busy', 'unwritable']),
  file: z.string(),
  reason: z.string().optional(),
})

/** What a warm worker reports once (search config for `/api/v1/search/config`). */
export const WarmInfoSchema = z.object({
  worker: WorkerStatsSchema,
  warmMs: z.number(),
  /** How the processed-database cache served this worker (absent: no cache). */
  cache: ProcessedCacheReportSchema.optional(),
  /**
   * The key-switching kernel's diagonals outside every heap (absent: no such copy):
   * `shared` when every worker thread of the node reads the same copy, `attached` when
   * this worker found it built and processed nothing.
   */
  diagonals: z.object({ bytes: z.number(), shared: z.boolean(), attached: z.boolean() }).optional(),
  /** The search this worker serves (what clients need to make keys and queries). */
  search: SearchSummarySchema,
  /** Ids and metadata of the database's rows, for the catalog route. */
  catalog: SearchCatalogSchema,
})
export type WarmInfo = z.infer<typeof WarmInfoSchema>

/**
 * Worker → executor, whatever the worker runs in (`WorkerHandle`): a child process's IPC
 * channel, or the event loop. A reply carries the id of the job it answers.
 */
export const WorkerUpMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('warm'), info: WarmInfoSchema }),
  z.object({ type: z.literal('progress'), workerId: z.string(), progress: ProcessingProgressSchema }),
  z.object({ type: z.literal('warmFailed'), error: HeErrorJSONSchema }),
  z.object({ type: z.literal('reply'), id: z.number().int(), reply: WorkerReplySchema }),
])
export type WorkerUpMessage = z.infer<typeof WorkerUpMessageSchema>

/** Executor → worker: one job at a time, or stop once the job before is answered. */
export const WorkerDownMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('job'), id: z.number().int(), job: WorkerJobSchema }),
  z.object({ type: z.literal('shutdown') }),
])
export type WorkerDownMessage = z.infer<typeof WorkerDownMessageSchema>
