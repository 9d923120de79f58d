import { HeError, loadSeal, parseParams, sealWasmModule } from '@sealbox/he-core'
import type { KeyLoadTarget } from '@sealbox/he-core/envelope'
import { compileSealModule } from '@sealbox/he-core/node'
import type { FastifyBaseLogger } from 'fastify'
import { LRUCache } from 'lru-cache'
import { EXECUTOR_MODES, type ExecutorMode, type ServerConfig } from '../config/ServerConfig.ts'
import type { ServerMetrics } from '../metrics/ServerMetrics.ts'
import type { KeyBlobRef, KeyStore } from '../store/KeyStore.ts'
import { admitSearchDatabase } from './admitSearchDatabase.ts'
import { CostAdmission, chargedUnits } from './CostAdmission.ts'
import { checkKeyCacheFits, type WorkerHeapPlan } from './checkKeyCacheFits.ts'
import { keyLoadUnits } from './coldWorkCost.ts'
import { createExecutor } from './createExecutor.ts'
import { FairScheduler } from './FairScheduler.ts'
import type { HubResult } from './HubResult.ts'
import type { HubSubmitOptions } from './HubSubmitOptions.ts'
import { hubExecutorEvents } from './hubExecutorEvents.ts'
import { InlineAdmission } from './InlineAdmission.ts'
import { InlineExecutor } from './InlineExecutor.ts'
import { jobCost } from './jobCost.ts'
import { answers, type SearchJob, type WarmInfo, type WorkerJob, type WorkerReply } from './jobMessages.ts'
import { KeyBytesCache } from './KeyBytesCache.ts'
import { KeyPlacement } from './KeyPlacement.ts'
import { refuseUncacheableKeys } from './refuseUncacheableKeys.ts'
import { mergeSearchParts, searchParts } from './splitSearch.ts'
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
    this.#setup = await admitSearchDatabase({ setup: this.#setup, config: this.#config, log: this.#log })
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
        const events = hubExecutorEvents(mode, { log: this.#log, metrics: this.#metrics, scheduler: () => scheduler })
        const executor = createExecutor({ mode, setup: this.#setup, config: this.#config, events, wasmModule })
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
    const base = jobCost(job, {
      cost: options.cost,
      peakHeapBytes: options.peakHeapBytes,
      coldContext: cold ? params : undefined,
      search: this.#warm?.search,
      load: this.#loadTarget(),
      maxPolyModulusDegree: this.#config.MAX_POLY_DEGREE,
    })
    const cost = keyLoad ? { ...base, coldUnits: (base.coldUnits ?? 0) + keyLoad.units } : base
    this.#admission.check(cost, mode)
    // Within the per-job limits, keys that could never stay cached are refused too.
    if (job.type === 'inspectKeys') {
      refuseUncacheableKeys(job.bytes, { load: this.#loadTarget(), search: this.#warm?.search, config: this.#config })
    }
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
      workTimeoutMs: options.workTimeoutMs ?? this.#config.REQUEST_TIMEOUT_MS,
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
