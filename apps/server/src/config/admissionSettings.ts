import { z } from 'zod'
import { bool, int, MiB } from './configValues.ts'

/**
 * Which worker runs a job and what a node admits: caches, queues, deadlines, the sizes of
 * bodies, programs and heaps, and each tenant's and address's budgets (ServerConfigSchema's
 * admission settings).
 */
export const ADMISSION_SETTINGS = {
  SCHEDULING: z
    .enum(['affinity', 'round-robin'])
    .default('affinity')
    .describe(
      "Which worker runs a job: `affinity` (the worker that already holds the job's keys deserialized, load-aware) or `round-robin` (the next free worker; for comparison).",
    ),
  KEY_CACHE_BYTES: int(0, 64 * 1024 * MiB)
    .default(256 * MiB)
    .describe(
      'Per-worker budget of deserialized evaluation keys (LRU); a key upload that would take more in a worker is refused (422).',
    ),
  KEY_BYTES_CACHE_BYTES: int(0, 64 * 1024 * MiB)
    .default(256 * MiB)
    .describe(
      "Per-node budget of key sets kept as full-form bytes on the main thread (LRU), the tier between the workers' caches and the store; 0 disables it. A key upload larger than it in full form is refused (422).",
    ),
  KEY_STORE_KERNEL_FORMS: bool
    .default(true)
    .describe(
      "Keep a search's kernel form of each uploaded key set in the key store beside SEAL's bytes (about 0.38 MiB per key set at the default search), so a miss of every cache copies words instead of loading SEAL keys; counted in the tenant's stored bytes. `false` neither writes nor reads them (for comparison).",
    ),
  QUEUE_SIZE: int(1, 100_000)
    .default(64)
    .describe(
      'Jobs waiting for a worker, all tenants together; when full, a lane under its fair share takes the place of the newest job of the lane holding the most, others get 503 + Retry-After.',
    ),
  TENANT_QUEUE_SIZE: int(1, 100_000)
    .default(32)
    .describe(
      'Jobs one lane may have waiting — a tenant, or all the anonymous sessions of one client address together; keeps one tenant or address from filling the whole queue.',
    ),
  REQUEST_TIMEOUT_MS: int(100, 3_600_000)
    .default(30_000)
    .describe(
      "Whole request deadline, body and queue wait included; a job whose estimate exceeds what is left answers 504 at once. Also the queue's bound of estimated work per worker, and a started job's own time from its submission: past it the job is killed with its worker.",
    ),
  ALLOW_EXECUTOR_OVERRIDE: bool
    .default(false)
    .describe('Lets a request pick its executor (`x-sealbox-executor`); for benchmarks.'),
  MAX_POLY_DEGREE: z.coerce
    .number()
    .int()
    .refine((n) => [4096, 8192, 16384, 32768].includes(n), 'one of 4096, 8192, 16384, 32768')
    .default(16384)
    .describe('Largest polynomial modulus degree a client may use (4096, 8192, 16384 or 32768).'),
  TENANT_QUOTA_BYTES: int(0, 2 ** 50)
    .default(512 * MiB)
    .describe('Stored bytes per tenant.'),
  MAX_KEYSET_BYTES: int(1024, 4096 * MiB)
    .default(64 * MiB)
    .describe("Largest key set one PUT may upload (sets that route's body limit)."),
  MAX_KEYSETS: int(1, 100_000).default(64).describe('Key sets per tenant.'),
  MAX_REQUEST_BYTES: int(1024, 4096 * MiB)
    .default(32 * MiB)
    .describe('Largest search or evaluate body.'),
  RECEIVING_BYTES: int(1024, 2 ** 50)
    .default(512 * MiB)
    .describe(
      'Bytes of request bodies this node receives at once, all clients together (reserved from Content-Length before a byte is read, or as a chunked body streams in); beyond it: 503 + Retry-After.',
    ),
  ADDRESS_RECEIVING_BYTES: int(1024, 2 ** 50)
    .default(256 * MiB)
    .describe(
      'Bytes of request bodies one client address sends at once (stalled uploads hold theirs until REQUEST_TIMEOUT_MS); beyond it: 429 + Retry-After.',
    ),
  TENANT_RECEIVING_BYTES: int(1024, 2 ** 50)
    .default(128 * MiB)
    .describe('Bytes of request bodies one tenant sends at once; beyond it: 429 + Retry-After.'),
  MAX_QUERIES_PER_SEARCH: int(1, 1024).default(16).describe('Queries one search request may carry.'),
  MAX_PROGRAM_STEPS: int(1, 10_000).default(64).describe('Steps one evaluate program may have.'),
  SEAL_ERROR_RECYCLE: int(1, 3500)
    .default(1000)
    .describe('A worker is replaced after this many caught SEAL exceptions (node-seal breaks near 4,000).'),
  MAX_PROGRAM_COST: z.coerce
    .number()
    .positive()
    .max(1e9)
    .default(10_000)
    .describe(
      "Largest estimated work of one evaluate request, in cost units (he-core's `programCost`: 1 unit ≈ 0.22 ms of a worker's CPU, COST_UNIT_MS, so the default is about 2.2 s); above it: 422 LIMIT_EXCEEDED.",
    ),
  MAX_JOB_HEAP_BYTES: int(16 * MiB, 4096 * MiB)
    .default(1024 * MiB)
    .describe(
      "Largest memory one job may need at once, estimated before it is admitted: an evaluate program's peak WASM heap (he-core's `programCost`: context, keys, inputs, live values, SEAL's scratch), a key upload's keys inflated and loaded into SEAL at the full size its parameters and listed Galois elements give (he-core's `keyUploadSize`); above it: 422 LIMIT_EXCEEDED naming it.",
    ),
  WORKER_HEAP_RECYCLE_BYTES: int(64 * MiB, 4096 * MiB)
    .default(1024 * MiB)
    .describe(
      'A worker whose WASM heap is above this after a job is replaced right after its reply (a WASM heap never shrinks), so the next job never inherits a grown heap. Below WORKER_HEAP_BYTES.',
    ),
  WORKER_HEAP_BYTES: int(256 * MiB, 4096 * MiB)
    .default(3584 * MiB)
    .describe(
      "Per-worker WASM heap cap and budget. The engine enforces it (pool and inline executors): each worker's node-seal memory may grow to this many bytes and no further, so an allocation past it is a std::bad_alloc answered 507 OUT_OF_MEMORY at once (the worker is replaced) instead of a heap near the 4 GiB cap. The scheduler keeps jobs under it: a job runs on a worker only when its estimated peak fits on top of the heap the worker reported after its last job; otherwise on another worker, or on that one once it has been replaced by a fresh one. Above WORKER_HEAP_RECYCLE_BYTES and KEY_CACHE_BYTES; keep MAX_JOB_HEAP_BYTES plus a fresh worker's heap (SEAL, the search database: tens of MiB) below it, or jobs estimated above what a fresh worker has left run anyway and may answer 507.",
    ),
  MAX_INLINE_COST: z.coerce
    .number()
    .positive()
    .max(1e9)
    .default(100)
    .describe(
      'Largest job the `inline` executor takes, in cost units: inline blocks the event loop for the whole job, so it only runs small ones (a default search, a small n=4096 program).',
    ),
  INLINE_MAX_JOB_MS: int(1, 60_000)
    .default(500)
    .describe(
      'Longest job a request that picks the `inline` executor (x-sealbox-executor) may run, by the measured time of jobs like it (ms): it blocks the event loop for the whole job, so `/healthz` may wait this long (plus a loop turn) while any number of clients use it.',
    ),
  INLINE_BUDGET_MS: int(1, 86_400_000)
    .default(2000)
    .describe(
      'Milliseconds of the `inline` executor one client address may use per INLINE_BUDGET_WINDOW_MS; past it: 429.',
    ),
  INLINE_BUDGET_WINDOW_MS: int(1000, 86_400_000)
    .default(10_000)
    .describe('The window of INLINE_BUDGET_MS, ms (the budget refills evenly over it).'),
  TENANT_COST_BUDGET: z.coerce
    .number()
    .min(1)
    .max(1e12)
    .default(300_000)
    .describe(
      'Cost units one tenant may spend per TENANT_COST_WINDOW_MS (searches, programs, key uploads); past it: 429. The default is about one worker thread for the whole window (300,000 × COST_UNIT_MS 0.22 ms ≈ 66 s per minute; a default search is about 28 units). In local mode the sessions of one client address also share ADDRESS_COST_BUDGET.',
    ),
  ADDRESS_COST_BUDGET: z.coerce
    .number()
    .min(1)
    .max(1e12)
    .optional()
    .describe(
      'Local mode: cost units the anonymous sessions of one client address may spend together per TENANT_COST_WINDOW_MS (default TENANT_COST_BUDGET: one address, one budget, however many sessions it opens); past it: 429.',
    ),
  TENANT_COST_WINDOW_MS: int(1000, 86_400_000)
    .default(60_000)
    .describe('The window of TENANT_COST_BUDGET, ms (the budget refills evenly over it).'),
  EXECUTOR_OVERRIDE_RATE: z.coerce
    .number()
    .positive()
    .max(100_000)
    .default(10)
    .describe(
      'Requests one client address may send per second with `x-sealbox-executor` naming a non-default executor.',
    ),
  EXECUTOR_OVERRIDE_BURST: int(1, 100_000)
    .default(40)
    .describe("Such requests one client address may send at once (the token bucket's size)."),
}
