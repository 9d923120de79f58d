import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { ExecutorMode } from '../config/ServerConfig.ts'
import type { ReplacementReason } from '../executor/Executor.ts'
import type { FairScheduler } from '../executor/FairScheduler.ts'
import type { WarmInfo, WorkerReply } from '../executor/jobMessages.ts'
import type { KeyBytesCache } from '../executor/KeyBytesCache.ts'
import type { ReceivingBudget } from '../http/ReceivingBudget.ts'
import type { PhaseTimings } from '../http/ServerTiming.ts'

const PHASE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/**
 * The server's Prometheus metrics: request phases, queue depth, running jobs, warm
 * workers, key-cache hits and misses, worker replacements, job errors, plus Node's
 * default metrics (event-loop delay and utilisation, heap, GC).
 */
export class ServerMetrics {
  readonly registry = new Registry()
  readonly #requests: Counter<'route' | 'method' | 'status'>
  readonly #phases: Histogram<'route' | 'phase'>
  readonly #keyCache: Counter<'executor' | 'result'>
  readonly #keyTiers: Counter<'executor' | 'tier'>
  readonly #storeForms: Counter<'executor' | 'form'>
  readonly #kernelFormsDamaged: Counter<'executor'>
  readonly #kernelFormsWritten: Counter<'reason'>
  #bytesCache: KeyBytesCache | undefined
  readonly #replacements: Counter<'executor' | 'reason'>
  readonly #jobErrors: Counter<'executor' | 'code'>
  readonly #heap: Gauge<'executor'>
  readonly #warmups: Counter<'executor' | 'database'>
  readonly #diagonalBytes: Gauge<'executor' | 'shared'>
  readonly #sealExceptions: Gauge<'executor'>
  readonly #schedulers = new Map<ExecutorMode, FairScheduler>()
  readonly #tokenReloads: Counter<'result'>
  readonly #receivingRefused: Counter
  readonly #searchDroppedBits: Counter<'dropped_bits'>

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'sealbox_', eventLoopMonitoringPrecision: 10 })
    this.#requests = new Counter({
      name: 'sealbox_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['route', 'method', 'status'],
      registers: [this.registry],
    })
    this.#phases = new Histogram({
      name: 'sealbox_request_phase_seconds',
      help: 'Time per request phase (queue, keyload, deserialize, compute, serialize, total)',
      labelNames: ['route', 'phase'],
      buckets: PHASE_BUCKETS,
      registers: [this.registry],
    })
    this.#keyCache = new Counter({
      name: 'sealbox_key_cache_lookups_total',
      help: 'Evaluation-key lookups in the worker caches (hit: already deserialized)',
      labelNames: ['executor', 'result'],
      registers: [this.registry],
    })
    this.#keyTiers = new Counter({
      name: 'sealbox_key_tier_lookups_total',
      help: 'Where jobs found their evaluation keys: worker (deserialized in the worker), bytes (full-form bytes in the node cache), store (durable store)',
      labelNames: ['executor', 'tier'],
      registers: [this.registry],
    })
    this.#storeForms = new Counter({
      name: 'sealbox_key_store_reads_total',
      help: 'Store-tier key misses by the form the store served: kernel (its kernel form, copied, no SEAL load) or seal (the upload, loaded into SEAL and converted)',
      labelNames: ['executor', 'form'],
      registers: [this.registry],
    })
    this.#kernelFormsDamaged = new Counter({
      name: 'sealbox_key_store_kernel_forms_damaged_total',
      help: "Stored kernel forms that failed their checks (digest, layout, residues); the key set was served from SEAL's bytes and the form rewritten",
      labelNames: ['executor'],
      registers: [this.registry],
    })
    this.#kernelFormsWritten = new Counter({
      name: 'sealbox_key_store_kernel_forms_written_total',
      help: 'Kernel forms offered to the key store: upload (kept with an upload), miss (made on a store-tier miss and kept), skipped (over the quota, or the key set gone), failed (the store refused)',
      labelNames: ['reason'],
      registers: [this.registry],
    })
    this.#receivingRefused = new Counter({
      name: 'sealbox_receiving_refused_total',
      help: 'Request bodies refused because the bytes being received would pass RECEIVING_BYTES, ADDRESS_RECEIVING_BYTES or TENANT_RECEIVING_BYTES',
      registers: [this.registry],
    })
    this.#searchDroppedBits = new Counter({
      name: 'sealbox_search_requests_total',
      help: 'Search requests sent to the workers, by whether the client accepts dropped low-order bits (x-sealbox-dropped-bits): accepted, or not (an older he-core client, which gets every bit)',
      labelNames: ['dropped_bits'],
      registers: [this.registry],
    })
    this.#tokenReloads = new Counter({
      name: 'sealbox_tokens_file_reloads_total',
      help: 'TOKENS_FILE reads after start (SIGHUP or a change): reloaded, unchanged, or refused (the tokens in force stayed)',
      labelNames: ['result'],
      registers: [this.registry],
    })
    const metrics = this
    new Gauge({
      name: 'sealbox_key_bytes_cache_bytes',
      help: 'Bytes held by the node cache of full-form key sets',
      registers: [this.registry],
      collect() {
        this.set(metrics.#bytesCache?.stats().bytes ?? 0)
      },
    })
    new Gauge({
      name: 'sealbox_key_bytes_cache_entries',
      help: 'Key sets held by the node cache of full-form key sets',
      registers: [this.registry],
      collect() {
        this.set(metrics.#bytesCache?.stats().entries ?? 0)
      },
    })
    this.#replacements = new Counter({
      name: 'sealbox_worker_replacements_total',
      help: 'Workers taken out of service and replaced, by reason',
      labelNames: ['executor', 'reason'],
      registers: [this.registry],
    })
    this.#jobErrors = new Counter({
      name: 'sealbox_job_errors_total',
      help: 'Jobs that failed in a worker, by error code',
      labelNames: ['executor', 'code'],
      registers: [this.registry],
    })
    this.#warmups = new Counter({
      name: 'sealbox_worker_warmups_total',
      help: 'Workers warmed (started or replaced), by how they got the search database: processed (encoded or read from the processed cache) or attached (to the shared diagonals another thread of the node processed)',
      labelNames: ['executor', 'database'],
      registers: [this.registry],
    })
    this.#diagonalBytes = new Gauge({
      name: 'sealbox_search_diagonal_bytes',
      help: "Bytes of the search kernel's diagonals outside the workers' heaps: one copy per node when shared=true (worker threads), one per worker otherwise",
      labelNames: ['executor', 'shared'],
      registers: [this.registry],
    })
    this.#heap = new Gauge({
      name: 'sealbox_worker_wasm_heap_bytes',
      help: 'WASM heap of the worker that answered last (it only grows; flat under load means no leak)',
      labelNames: ['executor'],
      registers: [this.registry],
    })
    this.#sealExceptions = new Gauge({
      name: 'sealbox_worker_seal_exceptions',
      help: 'C++ exceptions caught on the worker that answered last (it is replaced at SEAL_ERROR_RECYCLE)',
      labelNames: ['executor'],
      registers: [this.registry],
    })
    const schedulers = this.#schedulers
    new Gauge({
      name: 'sealbox_queue_depth',
      help: 'Jobs waiting for a worker',
      labelNames: ['executor'],
      registers: [this.registry],
      collect() {
        for (const [mode, scheduler] of schedulers) this.set({ executor: mode }, scheduler.queued)
      },
    })
    new Gauge({
      name: 'sealbox_jobs_running',
      help: 'Jobs running on workers',
      labelNames: ['executor'],
      registers: [this.registry],
      collect() {
        for (const [mode, scheduler] of schedulers) this.set({ executor: mode }, scheduler.running)
      },
    })
    new Gauge({
      name: 'sealbox_workers_warm',
      help: 'Workers warm and in service',
      labelNames: ['executor'],
      registers: [this.registry],
      collect() {
        for (const [mode, scheduler] of schedulers) this.set({ executor: mode }, scheduler.executor.status().warm)
      },
    })
  }

  /** Reports the request bodies being received in the gauges. */
  watchReceiving(budget: ReceivingBudget): void {
    new Gauge({
      name: 'sealbox_receiving_bodies',
      help: 'Request bodies being received (reserved in RECEIVING_BYTES until answered)',
      registers: [this.registry],
      collect() {
        this.set(budget.stats().bodies)
      },
    })
    new Gauge({
      name: 'sealbox_receiving_reserved_bytes',
      help: 'Bytes reserved by the request bodies being received (their Content-Length, or what streamed in)',
      registers: [this.registry],
      collect() {
        this.set(budget.stats().reservedBytes)
      },
    })
    new Gauge({
      name: 'sealbox_receiving_arrived_bytes',
      help: 'Bytes of the request bodies being received that have arrived',
      registers: [this.registry],
      collect() {
        this.set(budget.stats().arrivedBytes)
      },
    })
  }

  /** A body refused for RECEIVING_BYTES, ADDRESS_RECEIVING_BYTES or TENANT_RECEIVING_BYTES. */
  receivingRefused(): void {
    this.#receivingRefused.inc()
  }

  /** Counts a search request by its opt-in, so an operator sees when clients without it are gone. */
  searchRequest(droppedBits: boolean): void {
    this.#searchDroppedBits.inc({ dropped_bits: droppedBits ? 'accepted' : 'not_accepted' })
  }

  /** Reports the node's bytes cache in the gauges. */
  watchBytesCache(cache: KeyBytesCache): void {
    this.#bytesCache = cache
  }

  /** Says which key store and scheduling this server runs (a constant 1 with labels). */
  configInfo(labels: { store: string; scheduler: string }): void {
    new Gauge({
      name: 'sealbox_config_info',
      help: 'Key store and scheduling of this server',
      labelNames: ['store', 'scheduler'],
      registers: [this.registry],
    }).set(labels, 1)
  }

  /** Reports the queue of an executor in the gauges. */
  watch(mode: ExecutorMode, scheduler: FairScheduler): void {
    this.#schedulers.set(mode, scheduler)
  }

  request(route: string, method: string, status: number, phases: PhaseTimings, totalMs: number): void {
    this.#requests.inc({ route, method, status: String(status) })
    for (const [phase, ms] of Object.entries(phases)) this.#phases.observe({ route, phase }, ms / 1000)
    this.#phases.observe({ route, phase: 'total' }, totalMs / 1000)
  }

  job(mode: ExecutorMode, reply: WorkerReply): void {
    if (reply.keyCache !== 'none') this.#keyCache.inc({ executor: mode, result: reply.keyCache })
    if (reply.keyTier) this.#keyTiers.inc({ executor: mode, tier: reply.keyTier })
    if (reply.storeForm) this.#storeForms.inc({ executor: mode, form: reply.storeForm })
    if (reply.kernelFormDamaged) this.#kernelFormsDamaged.inc({ executor: mode })
    if (reply.result.type === 'failed') this.#jobErrors.inc({ executor: mode, code: reply.result.error.code })
    if (reply.worker.heapBytes !== undefined) this.#heap.set({ executor: mode }, reply.worker.heapBytes)
    this.#sealExceptions.set({ executor: mode }, reply.worker.sealExceptions)
  }

  /** A kernel form offered to the key store, and what became of it. */
  kernelFormWritten(reason: 'upload' | 'miss' | 'skipped' | 'failed'): void {
    this.#kernelFormsWritten.inc({ reason })
  }

  tokensReloaded(result: 'reloaded' | 'unchanged' | 'refused'): void {
    this.#tokenReloads.inc({ result })
  }

  /** A worker is warm: how it got the database, and the diagonals' bytes (counted once when shared). */
  workerWarm(mode: ExecutorMode, info: WarmInfo): void {
    this.#warmups.inc({ executor: mode, database: info.diagonals?.attached ? 'attached' : 'processed' })
    if (info.diagonals) {
      this.#diagonalBytes.set({ executor: mode, shared: String(info.diagonals.shared) }, info.diagonals.bytes)
    }
  }

  replaced(mode: ExecutorMode, reason: ReplacementReason): void {
    this.#replacements.inc({ executor: mode, reason })
  }
}
