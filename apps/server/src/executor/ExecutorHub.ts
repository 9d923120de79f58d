import { mkdir, readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { HeError, loadSeal, parseParams, type ResolvedParams, sealWasmModule } from '@sealbox/he-core'
import {
  type KeyLoadTarget,
  type KeyUploadSize,
  keyUploadCost,
  keyUploadPeakHeapBytes,
  keyUploadSize,
} from '@sealbox/he-core/envelope'
import { compileSealModule } from '@sealbox/he-core/node'
import { searchCost, searchMemoryPlace } from '@sealbox/he-core/search'
import type { FastifyBaseLogger } from 'fastify'
import { LRUCache } from 'lru-cache'
import { EXECUTOR_MODES, type ExecutorMode, type ServerConfig } from '../config/ServerConfig.ts'
import { checkSearchDatabase } from '../database/checkSearchDatabase.ts'
import { removeAbandonedCacheWrites } from '../database/ProcessedDatabaseCache.ts'
import { searchDatabaseContentHash } from '../database/searchDatabaseContentHash.ts'
import type { ServerMetrics } from '../metrics/ServerMetrics.ts'
import type { KeyBlobRef, KeyStore } from '../store/KeyStore.ts'
import { CostAdmission, chargedUnits, type JobCost } from './CostAdmission.ts'
import { checkKeyCacheFits, type WorkerHeapPlan } from './checkKeyCacheFits.ts'
import { contextBuildUnits, keyLoadUnits } from './coldWorkCost.ts'
import type { Executor, ExecutorEvents } from './Executor.ts'
import { FairScheduler, type Scheduled } from './FairScheduler.ts'
import { InlineAdmission } from './InlineAdmission.ts'
import { InlineExecutor } from './InlineExecutor.ts'
import {
  answers,
  type FailedJobResult,
  type JobResultOf,
  type SearchJob,
  type WarmInfo,
  type WorkerJob,
  type WorkerReply,
} from './jobMessages.ts'
import { KeyBytesCache } from './KeyBytesCache.ts'
import { KeyPlacement } from './KeyPlacement.ts'
import { ProcessExecutor } from './ProcessExecutor.ts'
import { searchCacheBytes } from './searchCacheBytes.ts'
import { mergeSearchParts, searchParts } from './splitSearch.ts'
import { WorkerPoolExecutor } from './WorkerPoolExecutor.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** What the hub asks of the key store: to keep a kernel form beside a stored key set. */
export type KernelFormKeeper = Pick<KeyStore, 'putKernelForm'>

/** 32-bit WebAssembly's own heap limit. */
const WASM_HEAP_LIMIT = 4096 * 1024 * 1024

/**
 * How many parameter sets the hub remembers a worker building lately: about what a
 * worker's context cache (CONTEXT_CACHE_BYTES) holds of them.
 */
const RECENT_PARAMS = 16

/** Options of one submission through the hub. */
export interface HubSubmitOptions {
  /** Executor override (only when the server allows it). */
  mode?: ExecutorMode
  signal?: AbortSignal
  timeoutMs: number
  /** An evaluate job's estimated work in cost units (the route's program analysis); searches are priced here. */
  cost?: number
  /** An evaluate job's estimated peak heap (the route's program analysis); key uploads are sized here. */
  peakHeapBytes?: number
  /** An evaluate job's parameters as the route validated them (`parseEvaluateRequest`): not parsed again here. */
  params?: ResolvedParams
  /** Who sent it: per-address budgets (the inline executor's milliseconds, anonymous tenants' cost) are kept by it. */
  client?: JobClient
}

/** The client behind a job, for the budgets kept per client address. */
export interface JobClient {
  address: string
  /** A local-mode session's tenant: its address's anonymous tenants share one cost budget. */
  anonymous: boolean
}

/** How job `J` ended: its own result type, or the worker's error. */
export type JobOutcome<J extends WorkerJob> =
  | { ok: true; result: JobResultOf<J> }
  | { ok: false; error: FailedJobResult['error'] }

/** A finished job `J`, with the executor that ran it and its outcome, typed by the job. */
export interface HubResult<J extends WorkerJob = WorkerJob> extends Scheduled {
  mode: ExecutorMode
  /** Cost units charged: the job's own and the cold work before it (a context build, a key load). */
  chargedUnits: number
  outcome: JobOutcome<J>
}

/** How the warm log line tells where a worker's processed database came from. */
function warmDatabaseNote(info: WarmInfo): string {
  if (info.diagonals?.attached) return ": attached to the node's shared diagonals (nothing processed)"
  const shared = info.diagonals?.shared ? ' into the shared diagonals' : ''
  if (info.cache) return `: processed database${shared} ${CACHE_OUTCOMES[info.cache.outcome]}`
  return shared ? `: processed database${shared}` : ''
}

/** How the log tells a processed-cache outcome. */
const CACHE_OUTCOMES = {
  hit: 'read from the cache',
  written: 'processed and written to the cache',
  rebuilt: 'cache damaged or stale: processed again and rewritten',
  busy: 'processed (another worker writes the cache)',
  unwritable: 'processed; the cache could not be written',
} as const

/**
 * The executors of this server, each behind its own fair scheduler: the configured
 * one, and — when requests may pick their executor (benchmarks) — the other two as
 * well, all warm before the server reports ready.
 */
export class ExecutorHub {
  readonly defaultMode: ExecutorMode
  readonly #schedulers = new Map<ExecutorMode, FairScheduler>()
  readonly #config: ServerConfig
  #setup: WorkerSetup
  readonly #metrics: ServerMetrics
  readonly #log: FastifyBaseLogger
  readonly #admission: CostAdmission
  readonly #inline: InlineAdmission
  #warm: WarmInfo | undefined
  /** The search's parameters, under which uploaded keys are loaded into SEAL to check them (from the warm worker). */
  #keyLoadTarget: KeyLoadTarget | undefined
  /** Full-form key bytes shared by every worker of this node (the middle key tier). */
  readonly bytesCache: KeyBytesCache
  /**
   * Parameters an evaluate job ran under lately (their validated form): a job under others
   * is charged its context's build (`contextBuildUnits`), which its worker does first —
   * 2–6 s at n = 16384 for a program priced at a few dozen units. Server-wide, not per
   * worker: with several workers a job may still build a context another worker holds.
   */
  readonly #recentParams = new LRUCache<string, true>({ max: RECENT_PARAMS })
  /**
   * Jobs queued or running that were charged the load of their keys, by executor and key
   * set part. Each worker loads a part once: a tenant's next jobs with the same keys,
   * queued behind one that loads them, are not charged (nor weighed, nor counted in
   * Retry-After) for a load no worker will do again — once as many are coming as the
   * executor has workers.
   */
  readonly #keyLoadsComing = new Map<string, number>()

  /** Where a kernel form made on a store-tier miss is kept for the next one (KEY_STORE_KERNEL_FORMS). */
  readonly #kernelForms: KernelFormKeeper | undefined

  constructor(options: {
    config: ServerConfig
    setup: WorkerSetup
    metrics: ServerMetrics
    log: FastifyBaseLogger
    /** The key store, which keeps the kernel forms workers make on store-tier misses. */
    kernelForms?: KernelFormKeeper
  }) {
    this.#kernelForms = options.config.KEY_STORE_KERNEL_FORMS ? options.kernelForms : undefined
    this.#config = options.config
    this.#setup = options.setup
    this.#metrics = options.metrics
    this.#log = options.log
    this.defaultMode = options.config.EXECUTOR
    this.#admission = new CostAdmission(options.config)
    this.#inline = new InlineAdmission(options.config)
    this.bytesCache = new KeyBytesCache(options.config.KEY_BYTES_CACHE_BYTES)
    options.metrics.watchBytesCache(this.bytesCache)
  }

  /** A warm worker's heap against KEY_CACHE_BYTES and WORKER_HEAP_RECYCLE_BYTES, once known (main.ts prints its warning). */
  heapPlan: WorkerHeapPlan | undefined

  /**
   * After a search's store-tier miss: a worker that loaded SEAL's bytes (a key set stored
   * without a kernel form, or whose kernel form failed its checks) made the kernel form;
   * the store keeps it, so the next miss on any node copies it. Awaited (once per key set
   * and search config) so the answer follows the write; a failure is logged, never the
   * search's: the key set keeps being served from SEAL's bytes.
   */
  async #keepKernelForm(keys: KeyBlobRef, reply: WorkerReply): Promise<void> {
    if (reply.kernelFormDamaged) {
      this.#log.warn(
        { tenant: keys.tenant, keySet: keys.id },
        `the stored kernel form of key set "${keys.id}" failed its checks; served from SEAL's bytes and rewritten`,
      )
    }
    const made = reply.fullFormKeys
    if (!this.#kernelForms || reply.storeForm !== 'seal' || !made?.storeForm) return
    try {
      const kept = await this.#kernelForms.putKernelForm(keys.tenant, keys.sha256, {
        form: made.storeForm,
        bytes: made.bytes,
      })
      this.#metrics.kernelFormWritten(kept ? 'miss' : 'skipped')
    } catch (error) {
      this.#metrics.kernelFormWritten('failed')
      this.#log.warn({ err: error, tenant: keys.tenant, keySet: keys.id }, 'the key store did not keep a kernel form')
    }
  }

  /** Creates and warms the executors; resolves when each has a warm worker. */
  async start(): Promise<WarmInfo> {
    await this.#admitDatabase()
    const modes: ExecutorMode[] = this.#config.ALLOW_EXECUTOR_OVERRIDE
      ? [this.defaultMode, ...EXECUTOR_MODES.filter((m) => m !== this.defaultMode)]
      : [this.defaultMode]
    // Compile node-seal once here and hand the compiled module to every worker thread,
    // its heap capped at WORKER_HEAP_BYTES (below 32-bit WebAssembly's own 4 GiB).
    await loadSeal()
    const wasmModule =
      this.#config.WORKER_HEAP_BYTES < WASM_HEAP_LIMIT
        ? await compileSealModule({ maxHeapBytes: this.#config.WORKER_HEAP_BYTES })
        : sealWasmModule()
    const warmed = await Promise.all(
      modes.map((mode) => {
        let scheduler: FairScheduler | undefined
        const events: ExecutorEvents = {
          onWarm: (info) => {
            const processing = info.search.database.processing
            this.#log.info(
              {
                worker: info.worker.workerId,
                warmMs: Math.round(info.warmMs),
                ...(info.worker.heapBytes === undefined ? {} : { heapBytes: info.worker.heapBytes }),
                processingMs: Math.round(processing.milliseconds),
                cachedBlocks: processing.cachedBlocks ?? 0,
                blocks: processing.blocks.length,
                ...(info.cache ? { cache: info.cache } : {}),
                ...(info.diagonals ? { diagonals: info.diagonals } : {}),
              },
              `${mode} worker warm${warmDatabaseNote(info)}`,
            )
            this.#metrics.workerWarm(mode, info)
            scheduler?.workerWarm(info.worker)
          },
          onReplaced: (workerId, reason) => {
            this.#log.warn({ worker: workerId, reason }, `${mode} worker replaced`)
            this.#metrics.replaced(mode, reason)
          },
          onProgress: (workerId, progress) => {
            const percent = Math.floor((100 * progress.blocksDone) / progress.blocks)
            this.#log.info(
              { worker: workerId, ...progress, milliseconds: Math.round(progress.milliseconds) },
              `${mode} worker processing the database: ${progress.blocksDone}/${progress.blocks} blocks (${percent}%), ${progress.fromCache} from the cache, ${(progress.milliseconds / 1000).toFixed(1)} s`,
            )
          },
          onCapacity: () => scheduler?.pump(),
        }
        const executor = this.#create(mode, events, wasmModule)
        scheduler = new FairScheduler({
          executor,
          maxQueued: this.#config.QUEUE_SIZE,
          maxQueuedPerTenant: this.#config.TENANT_QUEUE_SIZE,
          maxQueuedMs: this.#config.REQUEST_TIMEOUT_MS,
          scheduling: this.#config.SCHEDULING,
          bytesCache: this.bytesCache,
          // About one default search query: tenants interleave at that grain.
          quantum: 10,
          workerHeapBudget: this.#config.WORKER_HEAP_BYTES,
        })
        this.#schedulers.set(mode, scheduler)
        this.#metrics.watch(mode, scheduler)
        return executor.start()
      }),
    )
    const first = warmed[0] as WarmInfo
    this.heapPlan = checkKeyCacheFits(this.#config, first.worker.heapBytes)
    if (this.heapPlan?.warning) this.#log.warn(this.heapPlan, this.heapPlan.warning)
    else if (this.heapPlan)
      this.#log.info(this.heapPlan, 'worker heap: fresh + KEY_CACHE_BYTES below WORKER_HEAP_RECYCLE_BYTES')
    this.#warm = first
    return first
  }

  /**
   * Before any worker loads the database: refuses it from its shape when the settings
   * cannot serve it, then (SEARCH_CACHE) names it by its content hash for the processed
   * cache and clears writes a dead process left there.
   */
  async #admitDatabase(): Promise<void> {
    const started = performance.now()
    const checked = await checkSearchDatabase(this.#setup)
    this.#log.info(
      {
        rows: checked.rows,
        dimension: checked.dimension,
        configId: checked.config.configId,
        processedBytes: checked.processedBytes,
        form: checked.memory.form,
      },
      `database accepted from its shape: V=${checked.rows} × D=${checked.dimension}, ${(checked.processedBytes / 2 ** 20).toFixed(0)} MiB processed, ${searchMemoryPlace(checked.memory)}`,
    )
    if (!this.#config.SEARCH_CACHE) return
    const contentHash = await searchDatabaseContentHash(this.#setup.database)
    if (contentHash === undefined) return
    const dir = join(resolve(this.#config.DATA_DIR), 'search-cache')
    await mkdir(dir, { recursive: true })
    removeAbandonedCacheWrites(dir, await readdir(dir))
    this.#setup = { ...this.#setup, searchCache: { dir, contentHash } }
    this.#log.info(
      { contentHash, hashMs: Math.round(performance.now() - started), dir },
      'processed-database cache: database named by its content hash',
    )
  }

  #create(mode: ExecutorMode, events: ExecutorEvents, wasmModule: WebAssembly.Module | undefined): Executor {
    const setup = this.#setup
    switch (mode) {
      case 'pool':
        return new WorkerPoolExecutor({
          setup,
          threads: this.#config.WORKERS,
          events,
          ...(wasmModule ? { wasmModule } : {}),
        })
      case 'inline':
        return new InlineExecutor(setup, events, wasmModule)
      case 'process':
        return new ProcessExecutor({ setup, processes: this.#config.WORKERS, events })
      default: {
        const never: never = mode
        // Config is parsed against EXECUTOR_MODES: reaching here is a bug of ours, not the client's.
        throw new HeError('INTERNAL', `unknown executor ${String(never)}`)
      }
    }
  }

  /** What the first warm worker reported (search config, database facts). */
  get warmInfo(): WarmInfo | undefined {
    return this.#warm
  }

  /**
   * The server is ready once every executor has warmed up, and from then on when the
   * configured executor has all its workers warm. The executors a request may pick
   * besides it (benchmarks) are shown in `/readyz` but never make the server unready: an anonymous client must not be able to take it
   * out of a load balancer by wearing one of them out.
   */
  ready(): boolean {
    if (this.#warm === undefined) return false
    return this.#schedulers.get(this.defaultMode)?.executor.ready() ?? false
  }

  scheduler(mode: ExecutorMode): FairScheduler | undefined {
    return this.#schedulers.get(mode)
  }

  schedulers(): ReadonlyMap<ExecutorMode, FairScheduler> {
    return this.#schedulers
  }

  /**
   * Queues a job for a tenant on the chosen (or default) executor. The result is typed by
   * the job (`JobResultOf`): a reply of another type is refused here, once for every route.
   */
  async submit<J extends WorkerJob>(tenant: string, job: J, options: HubSubmitOptions): Promise<HubResult<J>> {
    const mode = options.mode ?? this.defaultMode
    if (mode !== this.defaultMode && !this.#config.ALLOW_EXECUTOR_OVERRIDE) {
      throw new HeError('FORBIDDEN', 'this server does not let requests choose the executor (ALLOW_EXECUTOR_OVERRIDE)')
    }
    const scheduler = this.#schedulers.get(mode)
    if (!scheduler) throw new HeError('INTERNAL', `executor ${mode} is not running`)
    // Refusals before any worker time: the job's own limits, then a full queue, then the budgets.
    // An evaluate job's parameters, validated once (by the route, when it passes them): remembered
    // under their JSON, as the context cache keys them.
    const params = job.type === 'evaluate' ? (options.params ?? parseParams(job.params)) : undefined
    const paramsKey = params === undefined ? undefined : JSON.stringify(params)
    const cold = mode !== 'inline' && paramsKey !== undefined && !this.#recentParams.has(paramsKey)
    const keyLoad = this.#keyLoadOf(job, scheduler, mode)
    const base = this.#costOf(job, options, cold ? params : undefined)
    const cost = keyLoad ? { ...base, coldUnits: (base.coldUnits ?? 0) + keyLoad.units } : base
    this.#admission.check(cost, mode)
    // Within the per-job limits, keys that could never stay cached are refused too.
    if (job.type === 'inspectKeys') this.#refuseUncacheable(job.bytes)
    const client = options.client
    // The anonymous sessions of one address wait in one lane: more sessions buy no more of the queue.
    const lane = client?.anonymous ? `address ${client.address}` : tenant
    scheduler.assertCapacity(tenant, lane, chargedUnits(cost))
    // A client that picks `inline` on a server configured for another executor (npm start) is
    // admitted by measured time and its address's budget; an operator's EXECUTOR=inline is a
    // measurement set up on purpose (the bench's inline rows), limited by MAX_INLINE_COST only.
    const executor = scheduler.executor
    const inline =
      mode === 'inline' && mode !== this.defaultMode
        ? this.#inline.admit(
            client?.address ?? 'unknown',
            job,
            cost.units,
            // What the loop would first build or load for it (a context, a key set), priced too.
            executor instanceof InlineExecutor
              ? () => executor.coldUnits(job, (keySet) => this.bytesCache.get(keySet)?.byteLength)
              : undefined,
          )
        : undefined
    this.#admission.charge(tenant, cost, client?.anonymous ? client.address : undefined)
    if (keyLoad) this.#keyLoadsComing.set(keyLoad.coming, (this.#keyLoadsComing.get(keyLoad.coming) ?? 0) + 1)
    const submitted = scheduler.submit(tenant, job, {
      timeoutMs: options.timeoutMs,
      // The job's own time is the whole REQUEST_TIMEOUT_MS from here, whatever its body took.
      workTimeoutMs: this.#config.REQUEST_TIMEOUT_MS,
      lane,
      cost: chargedUnits(cost),
      ...(cost.peakHeapBytes === undefined ? {} : { peakHeapBytes: cost.peakHeapBytes }),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(inline
        ? { beforeRun: inline.beforeRun, afterRun: inline.afterRun }
        : { afterRun: (reply: WorkerReply) => this.#inline.observe(job, cost.units, reply) }),
    })
    const result = keyLoad
      ? await submitted.finally(() => {
          const left = (this.#keyLoadsComing.get(keyLoad.coming) ?? 1) - 1
          if (left > 0) this.#keyLoadsComing.set(keyLoad.coming, left)
          else this.#keyLoadsComing.delete(keyLoad.coming)
        })
      : await submitted
    this.#metrics.job(mode, result.reply)
    // Local-mode sessions' stored bytes are bounded together (ANONYMOUS_STORAGE_BYTES) by
    // their uploads alone: the store keeps no kernel form for them.
    if (job.type === 'search' && job.keys && !client?.anonymous) await this.#keepKernelForm(job.keys, result.reply)
    // Answered, the worker built (or held) the job's context: the next job under it is warm.
    if (paramsKey !== undefined) this.#recentParams.set(paramsKey, true)
    const answered = result.reply.result
    const charged = Math.ceil(chargedUnits(cost))
    if (answered.type === 'failed') {
      return { ...result, mode, chargedUnits: charged, outcome: { ok: false, error: answered.error } }
    }
    if (!answers(job, answered)) throw new HeError('INTERNAL', `worker answered ${answered.type} to a ${job.type} job`)
    return { ...result, mode, chargedUnits: charged, outcome: { ok: true, result: answered } }
  }

  /**
   * Submits a search, split by blocks across the executor's workers when it is large
   * enough (`searchParts`: SEARCH_SPLIT_BLOCKS blocks a part at least), each part admitted,
   * priced and queued as a job of its own, and the parts merged into one answer. A part
   * refused or failed cancels the others.
   */
  async submitSearch(tenant: string, job: SearchJob, options: HubSubmitOptions): Promise<HubResult<SearchJob>> {
    const search = this.#warm?.search
    const mode = options.mode ?? this.defaultMode
    const workers = mode === 'inline' ? 1 : this.#config.WORKERS
    const blocks = search?.config.blocks.length ?? 1
    // A shard node holds blocks [start, end) of the whole database's config: its parts are of those.
    const held = search?.shard?.blocks ?? { start: 0, end: blocks }
    const parts = searchParts(held.end - held.start, workers, this.#config.SEARCH_SPLIT_BLOCKS).map((range) => ({
      start: range.start + held.start,
      end: range.end + held.start,
    }))
    if (!search || parts.length === 1) {
      return this.submit(tenant, search?.shard ? { ...job, blocks: held } : job, options)
    }
    const cancel = new AbortController()
    const outer = options.signal
    const onOuterAbort = () => cancel.abort(outer?.reason)
    outer?.addEventListener('abort', onOuterAbort, { once: true })
    try {
      const results = await Promise.all(
        parts.map((range) =>
          this.submit(tenant, { ...job, blocks: range }, { ...options, signal: cancel.signal }).catch((error) => {
            cancel.abort(error)
            throw error
          }),
        ),
      )
      return mergeSearchParts(results, {
        fingerprint: search.fingerprint,
        configId: search.configId,
        blockCount: blocks,
        ...(search.shard ? { blocks: held } : {}),
      })
    } finally {
      outer?.removeEventListener('abort', onOuterAbort)
    }
  }

  /**
   * A job's estimated work: the route's program cost (with the build of `coldContext`,
   * its parameters when no worker ran them lately; the inline executor prices its own cold
   * work by what its one SEAL instance holds), he-core's search model, a key upload's size,
   * or a unit for small jobs.
   */
  #costOf(job: WorkerJob, options: HubSubmitOptions, coldContext: ResolvedParams | undefined): JobCost {
    switch (job.type) {
      case 'evaluate':
        return {
          units: options.cost ?? 1,
          what: 'program',
          ...(options.peakHeapBytes === undefined ? {} : { peakHeapBytes: options.peakHeapBytes }),
          ...(coldContext ? { coldUnits: contextBuildUnits(coldContext) } : {}),
        }
      case 'search': {
        const perQuery = Number(this.#warm?.search.config.estimatedServerMs) || 1
        // A part of a split query is priced by its share of the blocks: the parts sum to the whole.
        const blocks = this.#warm?.search.config.blocks.length ?? 1
        const share = job.blocks ? (job.blocks.end - job.blocks.start) / blocks : 1
        return { units: searchCost({ estimatedServerMs: perQuery * share }, job.queries.length), what: 'search' }
      }
      case 'inspectKeys':
        return this.#keyUploadCostOf(job.bytes)
      case 'fault':
        return { units: 1, what: 'job' }
      default: {
        const never: never = job
        throw new HeError('INTERNAL', `unknown job ${JSON.stringify(never)}`)
      }
    }
  }

  /**
   * The load of the job's stored keys, when no worker holds them and fewer jobs that load
   * them are coming than the executor has workers (`#keyLoadsComing`): from the node's
   * bytes cache, or — when it has them not either — from the store (inflated, loaded,
   * re-saved in full form). Charged like a cold context: to the tenant and in the fair
   * queue, not against the per-request limits. Priced from the record, so a key set of
   * hundreds of Galois elements costs its searches what they really take.
   */
  #keyLoadOf(
    job: WorkerJob,
    scheduler: FairScheduler,
    mode: ExecutorMode,
  ): { units: number; coming: string } | undefined {
    const keys = KeyPlacement.keysOf(job)
    if (!keys || (job.type !== 'search' && job.type !== 'evaluate') || !job.keys) return undefined
    if (scheduler.holdsKeys(keys.keySet)) return undefined
    const coming = `${mode} ${keys.keys}`
    if ((this.#keyLoadsComing.get(coming) ?? 0) >= Math.max(1, scheduler.executor.status().size)) return undefined
    // From the store the whole stored set is read and unpacked, though a job loads only its part into SEAL.
    const units = keyLoadUnits({
      storedBytes: job.keys.bytes,
      fullFormBytes: this.bytesCache.sizeOf(keys.keySet),
    })
    return { units, coming }
  }

  /**
   * A key upload, priced and sized by what checking it inflates and loads — known from
   * its headers and meta before anything is inflated (`keyUploadSize`): keys under the
   * search parameters by their full size, however small the compressed upload. An upload
   * whose framing does not read is refused by the worker before it inflates anything: it
   * costs a pass over its bytes.
   */
  #keyUploadCostOf(bytes: Uint8Array): JobCost {
    const load = this.#loadTarget()
    let size: KeyUploadSize
    try {
      size = keyUploadSize(bytes, { load, maxPolyModulusDegree: this.#config.MAX_POLY_DEGREE })
    } catch {
      size = {
        uploadedBytes: bytes.byteLength,
        inflatedBytes: bytes.byteLength,
        loadedBytes: 0,
        loaded: false,
        galoisElements: 0,
      }
    }
    // What the worker would refuse before inflating anything is refused here, with no worker time.
    if (size.refusal) throw size.refusal
    const MiB = 2 ** 20
    const mib = (value: number) => Math.ceil(value / MiB).toLocaleString('en-US')
    const elements = size.galoisElements.toLocaleString('en-US')
    const peakHeapNote = size.loaded
      ? `its keys take ${mib(size.inflatedBytes)} MiB inflated and ${mib(size.loadedBytes)} MiB loaded into SEAL, the full size of the ${elements} Galois elements its meta lists, however small it is compressed: upload fewer Galois elements`
      : `its payloads are inflated to as much as ${mib(size.inflatedBytes)} MiB to check them`
    return { units: keyUploadCost(size), what: 'key upload', peakHeapBytes: keyUploadPeakHeapBytes(size), peakHeapNote }
  }

  /**
   * Refuses (LIMIT_EXCEEDED) keys for the search that could never stay cached: larger, in
   * the form a cache holds them, than a worker's key cache (KEY_CACHE_BYTES) or the
   * node's bytes cache (KEY_BYTES_CACHE_BYTES) — every request with them would load them
   * all again from the store (`searchCacheBytes`). A budget of 0 (the tier is off)
   * refuses nothing.
   */
  #refuseUncacheable(bytes: Uint8Array): void {
    const target = this.#loadTarget()
    const search = this.#warm?.search
    if (!target || !search) return
    let size: KeyUploadSize
    try {
      size = keyUploadSize(bytes, { load: target, maxPolyModulusDegree: this.#config.MAX_POLY_DEGREE })
    } catch {
      // Framing that does not read is the worker's to refuse (INVALID_ENVELOPE), before it inflates anything.
      return
    }
    if (!size.loaded) return
    const held = searchCacheBytes(search, size)
    const mib = (value: number) => Math.ceil(value / 2 ** 20).toLocaleString('en-US')
    const caches = [
      { setting: 'KEY_CACHE_BYTES', what: "a worker's key cache", bytes: held, budget: this.#config.KEY_CACHE_BYTES },
      {
        setting: 'KEY_BYTES_CACHE_BYTES',
        what: "the node's key bytes cache",
        bytes: held,
        budget: this.#config.KEY_BYTES_CACHE_BYTES,
      },
    ]
    for (const { setting, what, bytes, budget } of caches) {
      if (budget === 0 || bytes <= budget) continue
      const needed = search.galoisElements
      throw new HeError(
        'LIMIT_EXCEEDED',
        `this key set takes ${mib(bytes)} MiB in ${what} (${size.galoisElements.toLocaleString('en-US')} Galois elements), more than it holds: ${mib(budget)} MiB (${setting}), so every request with it would load it all again; upload only the Galois elements you use${needed.length > 0 ? ` (the search needs ${needed.join(', ')})` : ''}`,
        { details: { keyBytes: bytes, galoisElements: size.galoisElements, limit: budget, setting } },
      )
    }
  }

  /** The search's parameters from the warm worker: keys under them are loaded into SEAL at upload. */
  #loadTarget(): KeyLoadTarget | undefined {
    const search = this.#warm?.search
    if (!search) return undefined
    if (this.#keyLoadTarget?.fingerprint !== search.fingerprint) {
      const params = search.config.params
      this.#keyLoadTarget = {
        fingerprint: search.fingerprint,
        polyModulusDegree: params.polyModulusDegree,
        keyPrimeCount: params.coeffModulusBits.length,
        minPrimeBits: Math.min(...params.coeffModulusBits),
      }
    }
    return this.#keyLoadTarget
  }

  /** Lets queued and running jobs finish, then stops every worker. */
  async close(): Promise<void> {
    await Promise.all([...this.#schedulers.values()].map((scheduler) => scheduler.drain()))
    await Promise.all([...this.#schedulers.values()].map((scheduler) => scheduler.executor.close()))
  }
}
