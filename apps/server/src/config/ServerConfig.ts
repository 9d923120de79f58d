import { availableParallelism } from 'node:os'
import { SERVER_MODES as CONTRACT_SERVER_MODES, KEY_SET_ID, SERVER_EXECUTOR_MODES } from '@sealbox/he-core/client'
import { z } from 'zod'
import { POSTGRES_TIMEOUT_DEFAULTS } from '../store/postgresTimeouts.ts'
import { parseTokenList } from './tokenRules.ts'

/** Where HE work runs: Piscina worker threads, the main event loop, or child processes (as the contract names them). */
export const EXECUTOR_MODES = SERVER_EXECUTOR_MODES
export type ExecutorMode = (typeof EXECUTOR_MODES)[number]

/** `local`: anyone on the machine may get an anonymous token. `production`: configured tokens only. */
export const SERVER_MODES = CONTRACT_SERVER_MODES
export type ServerMode = (typeof SERVER_MODES)[number]

const MiB = 2 ** 20

/** Tenant names and key-set ids (the contract's rule): safe as file names (no `.`/`..`, no separators). */
export const TENANT_ID = KEY_SET_ID

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])]).transform((v) => {
  if (typeof v === 'boolean') return v
  return v === 'true' || v === '1' || v === 'yes'
})

/** `tenant:token` pairs, comma separated; tenant names lower case, tokens long and random enough to be secrets. */
const tokenList = z
  .string()
  .transform((text, ctx) => {
    const parsed = parseTokenList(text)
    if (parsed.problem === undefined) return parsed.tokens
    ctx.addIssue({ code: 'custom', message: parsed.problem })
    return z.NEVER
  })
  .default([])

/** Browser origins allowed to call the API cross-origin, comma separated (`https://a.example,http://localhost:5173`). */
const originList = z
  .string()
  .transform((text, ctx) => {
    const origins: string[] = []
    for (const entry of text.split(',').map((s) => s.trim())) {
      if (entry === '') continue
      let origin: string | undefined
      try {
        const url = new URL(entry)
        if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/$/, '')) {
          origin = url.origin
        }
      } catch {
        origin = undefined
      }
      if (origin === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected origins like "https://app.example.com" or "http://localhost:5173" (scheme, host, optional port; no path), got "${entry}"`,
        })
        return z.NEVER
      }
      origins.push(origin)
    }
    return origins
  })
  .default([])

/**
 * Every setting of the server, validated at start-up. Keys are the environment
 * variable names; flags are the same names in kebab case (`--key-cache-bytes`).
 */
export const ServerConfigSchema = z
  .object({
    PORT: int(0, 65535).default(8080).describe('TCP port to listen on; 0 picks a free one.'),
    HOST: z
      .string()
      .min(1)
      .default('localhost')
      .describe('`localhost` listens on the loopback addresses only (IPv4 and IPv6); `0.0.0.0` on every interface.'),
    DATA_DIR: z
      .string()
      .min(1)
      .default('.sealbox-data')
      .describe('Key sets and the local-mode token secret live here.'),
    EXECUTOR: z
      .enum(EXECUTOR_MODES)
      .default('pool')
      .describe(
        'Where HE work runs: `pool` (Piscina worker threads), `inline` (the main event loop) or `process` (child processes).',
      ),
    WORKERS: int(1, 64)
      .default(Math.max(1, availableParallelism() - 1))
      .describe(
        'Worker threads (pool) or child processes (process); inline always uses the main thread. Default: the available cores − 1 (at least 1).',
      ),
    DATABASE: z
      .string()
      .min(1)
      .default('synthetic')
      .describe(
        '`synthetic` (seeded random unit vectors, for benchmarks), `demo` (the 118 chemical elements with names, embedded with he-core’s public embedText: what the sandbox’s search is for) or a JSONL / CSV / .npy file of vectors.',
      ),
    SYNTHETIC_ROWS: int(1, 1_000_000).default(10_000).describe('Rows of the synthetic demo database.'),
    SYNTHETIC_DIM: int(1, 4096).default(16).describe('Vector dimension of the synthetic demo database.'),
    SYNTHETIC_SEED: int(0, 2 ** 31 - 1)
      .default(1)
      .describe('Seed of the synthetic demo database.'),
    SEARCH_CACHE: bool
      .default(true)
      .describe(
        'Keep the processed database (its NTT-form diagonals) in DATA_DIR/search-cache, named by the database’s SHA-256 and the search config id, so a restart reads it instead of processing again. Every block is checked (CRC-32, and the kernel form’s residues below their primes) before use; a damaged or stale file is processed again and rewritten, never served.',
      ),
    SEARCH_SHARD: z
      .string()
      .regex(/^\d{1,4}\/\d{1,4}$/, 'expected i/S, e.g. 0/2')
      .refine((text) => {
        // Text that is not i/S has its one message from the regex above.
        if (!/^\d{1,4}\/\d{1,4}$/.test(text)) return true
        const [index, count] = text.split('/').map(Number) as [number, number]
        return count >= 1 && index < count
      }, 'expected i/S with 0 ≤ i < S')
      .optional()
      .describe(
        'Serve shard i of S of the database (`0/2`, `1/2`): every node plans the whole database’s search config (one config id for all shards) and processes only its contiguous blocks — blocks ⌊i·B/S⌋ to ⌊(i+1)·B/S⌋ − 1 of the B blocks of n rows, in row order. Rows keep their global numbers and ids; clients send every query to every shard and merge (deploy/README.md, “Shards”). Unset: the whole database.',
      ),
    SEARCH_SPLIT_BLOCKS: int(1, 4096)
      .default(8)
      .describe(
        'A query over at least twice this many blocks (n rows each: 4,096 at the default parameters) is split across the workers by blocks, each part at least this many blocks, and the parts merged into one response; a smaller one runs on one worker. Each part is admitted and priced as a job of its own: they sum to the whole query.',
      ),
    SEARCH_PROFILE: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Search parameters: an he-core profile (`n4096`, `n4096-wide`, `n4096-cluster`, `n4096-seal-default`, `n8192`; each at t = 65537); unset: `n4096`, or `n4096-wide` from a padded dimension of 512 on (more noise budget), and in cluster-private BGV search `n4096-cluster` at the largest plain modulus its noise bound allows (a finer scale: better recall).',
      ),
    SEARCH_SCHEME: z.enum(['bgv', 'bfv']).default('bgv').describe('Search scheme: `bgv` or `bfv`.'),
    SEARCH_METRIC: z
      .enum(['cosine', 'dot'])
      .default('cosine')
      .describe('Search similarity: `cosine` (vectors normalized) or `dot`.'),
    SEARCH_BABY_STEPS: z
      .enum(['client', 'server'])
      .optional()
      .describe(
        'Who computes the baby-step rotations of the query: the client or the server; unset lets he-core choose by end-to-end time over broadband.',
      ),
    SEARCH_BABY_STEP: int(1, 4096)
      .optional()
      .describe('Baby step g of the search; unset lets he-core choose from its cost model.'),
    SEARCH_HOIST_BABY_STEPS: bool
      .default(false)
      .describe(
        "Server-side baby steps hoisted: the query's g − 1 rotations share one decomposition (faster per query), for a Galois key per step 1 … g − 1 uploaded once (instead of step 1's alone).",
      ),
    SEARCH_CLUSTERS: z
      .union([z.literal('auto'), int(0, 1 << 24)])
      .default(0)
      .describe(
        'Cluster-private search: `0` (default) searches every row exactly and returns every score; a number C ≥ 2 clusters the database once (balanced k-means, seeded, cached with the processed database) and each query selects its cluster obliviously, so the response holds one cluster’s scores (V/C rows) and its bytes do not grow with the database; `auto` picks C (or exact search) by the end-to-end cost model. The centroids and each cluster’s rows are public, served with the search config.',
      ),
    MODE: z
      .enum(SERVER_MODES)
      .default('local')
      .describe('`local`: anyone on the machine may get an anonymous token. `production`: configured tokens only.'),
    TOKENS: tokenList.describe(
      'Production tenants: `tenant:token,tenant2:token2`; a tenant may have several tokens (rotation). Prefer TOKENS_FILE.',
    ),
    TOKENS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe(
        'A file of `tenant:token` lines (`#` comments), read at start and again on SIGHUP or when it changes, without a restart: add the new token, switch clients, remove the old one. A file that does not parse keeps the tokens in force.',
      ),
    KEY_STORE: z
      .string()
      .regex(
        /^(file|postgres|postgres(ql)?:\/\/.+)$/,
        'expected "file", "postgres" (from the PG* variables) or a postgres://… URL',
      )
      .default('file')
      .describe(
        'Where key sets are stored: `file` (embedded, under DATA_DIR), a PostgreSQL URL (`postgres://user:password@host:5432/db`) shared by several server nodes, or `postgres` for the PG* variables (PGHOST, PGUSER, PGPASSWORD, PGDATABASE…). Unset with PGHOST or PGDATABASE set: `postgres` (logged).',
      ),
    KEY_STORE_STALE_MS: int(0, 86_400_000)
      .default(120_000)
      .describe(
        'While the key store is unreachable, a key-set record the store confirmed at most this long ago is still used (the job runs on the worker that holds the keys); 0: nothing is served without the store. Bounds how long a key set deleted through another node just before an outage may still be used here.',
      ),
    KEY_STORE_CONNECT_TIMEOUT_MS: int(0, 3_600_000)
      .default(60_000)
      .describe(
        'At start, how long to keep retrying the key store (with backoff, one log line per attempt) before exiting 1; 0: one attempt.',
      ),
    KEY_STORE_STATEMENT_TIMEOUT_MS: int(0, 3_600_000)
      .default(POSTGRES_TIMEOUT_DEFAULTS.statementMs)
      .describe('PostgreSQL key store: longest statement before it is cancelled and answered 503 (0: no limit).'),
    KEY_STORE_LOCK_TIMEOUT_MS: int(0, 3_600_000)
      .default(POSTGRES_TIMEOUT_DEFAULTS.lockMs)
      .describe('PostgreSQL key store: longest wait for a lock another write holds before 503 (0: no limit).'),
    KEY_STORE_ACQUIRE_TIMEOUT_MS: int(1, 3_600_000)
      .default(POSTGRES_TIMEOUT_DEFAULTS.acquireMs)
      .describe('PostgreSQL key store: longest wait for a free (or new) connection of the pool before 503.'),
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
    WEB_DIST: z
      .string()
      .default('../web/dist')
      .describe('Built sandbox to serve at `/`; empty disables. Relative paths resolve against the server package.'),
    FAULT_INJECTION: bool
      .default(false)
      .describe('Test-only fault route `POST /api/v1/_faults/:fault`; refused in production mode.'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Pino log level.'),
    SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(30_000).describe('How long shutdown waits for in-flight work.'),
    MAX_EVENT_LOOP_DELAY_MS: int(0, 60_000)
      .default(1000)
      .describe('Event-loop delay above which `@fastify/under-pressure` answers 503.'),
    CORS_ORIGINS: originList.describe(
      'Origins whose pages may call the API (CORS, with a preflight that allows `authorization`, `content-type` and `x-sealbox-executor`); empty: no cross-origin access (the default).',
    ),
    SESSION_RATE: z.coerce
      .number()
      .positive()
      .max(600_000)
      .default(60)
      .describe('Local mode: anonymous sessions one client address may create per minute, after the burst.'),
    SESSION_BURST: int(1, 100_000)
      .default(30)
      .describe("Local mode: sessions one client address may create at once (the token bucket's size)."),
    MAX_ANONYMOUS_TENANTS: int(1, 10_000_000)
      .default(1000)
      .describe(
        'Local mode: anonymous tenants at most; past it a new session is refused (503) until an empty one expires.',
      ),
    ANONYMOUS_STORAGE_BYTES: int(0, 2 ** 50)
      .default(2048 * MiB)
      .describe('Local mode: stored bytes of all anonymous tenants together (each also within TENANT_QUOTA_BYTES).'),
  })
  .superRefine((config, ctx) => {
    // Each bound must admit the largest body a route accepts, or that body could never arrive.
    const largestBody = Math.max(config.MAX_KEYSET_BYTES, config.MAX_REQUEST_BYTES)
    for (const key of ['RECEIVING_BYTES', 'ADDRESS_RECEIVING_BYTES', 'TENANT_RECEIVING_BYTES'] as const) {
      if (config[key] < largestBody) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `below the largest body a route accepts (${largestBody} bytes, MAX_KEYSET_BYTES / MAX_REQUEST_BYTES): such an upload could never be received`,
        })
      }
    }
    // Shards are contiguous row ranges; a cluster-private config reorders rows by cluster, and
    // its query selects one cluster of the whole database: the two do not compose (yet).
    if (config.SEARCH_SHARD !== undefined && config.SEARCH_CLUSTERS !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['SEARCH_SHARD'],
        message:
          'cannot be combined with SEARCH_CLUSTERS (cluster-private search serves the whole database from one node): set SEARCH_CLUSTERS=0 to shard',
      })
    }
    if (config.MAX_PROGRAM_COST > config.TENANT_COST_BUDGET) {
      ctx.addIssue({
        code: 'custom',
        path: ['MAX_PROGRAM_COST'],
        message: `above TENANT_COST_BUDGET (${config.TENANT_COST_BUDGET}): a program at the limit could never run`,
      })
    }
    // A worker's heap holds its cached keys and never shrinks past a recycle: both must sit
    // below the cap, or the scheduler's budget (WORKER_HEAP_BYTES) could never be kept.
    // MAX_JOB_HEAP_BYTES may exceed it on purpose (such jobs run on a worker as it is and
    // may answer 507: the test that provokes a real out-of-memory does so).
    if (config.WORKER_HEAP_RECYCLE_BYTES >= config.WORKER_HEAP_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_HEAP_RECYCLE_BYTES'],
        message: `not below WORKER_HEAP_BYTES (${config.WORKER_HEAP_BYTES}): a worker can never grow past its cap, so a grown one would never be replaced before it runs out of memory`,
      })
    }
    // The cached keys share the worker's heap with SEAL and the processed database, and a
    // worker above WORKER_HEAP_RECYCLE_BYTES is replaced: a cache as large as the threshold
    // makes every worker replace itself (losing its keys) each time its cache fills.
    // (Equal is warned about once the workers are warm, with the fresh heap measured: checkKeyCacheFits.)
    if (config.KEY_CACHE_BYTES > config.WORKER_HEAP_RECYCLE_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEY_CACHE_BYTES'],
        message: `above WORKER_HEAP_RECYCLE_BYTES (${config.WORKER_HEAP_RECYCLE_BYTES}): cached keys share the worker's heap with SEAL and the processed database, so a worker would be replaced (and lose its keys) whenever its cache fills; keep KEY_CACHE_BYTES + a fresh worker's heap (logged at start) below WORKER_HEAP_RECYCLE_BYTES`,
      })
    }
    if (config.KEY_CACHE_BYTES >= config.WORKER_HEAP_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEY_CACHE_BYTES'],
        message: `not below WORKER_HEAP_BYTES (${config.WORKER_HEAP_BYTES}): the cached keys live in the worker's heap, which would run out of memory before the cache evicts anything`,
      })
    }
    if (config.INLINE_MAX_JOB_MS > config.INLINE_BUDGET_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['INLINE_MAX_JOB_MS'],
        message: `above INLINE_BUDGET_MS (${config.INLINE_BUDGET_MS}): an inline job at the limit could never run`,
      })
    }
    if (config.MODE === 'production' && config.TOKENS.length === 0 && config.TOKENS_FILE === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['TOKENS'],
        message: 'production mode needs at least one tenant:token (TOKENS, or a TOKENS_FILE)',
      })
    }
    if (config.MODE === 'production' && config.FAULT_INJECTION) {
      ctx.addIssue({
        code: 'custom',
        path: ['FAULT_INJECTION'],
        message: 'fault injection is refused in production mode',
      })
    }
  })

/** What callers may pass (strings from env/flags, or typed values from tests). */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>
/** The validated configuration. */
export type ServerConfig = z.output<typeof ServerConfigSchema>
