import { threadId } from 'node:worker_threads'
import { HeError, loadSeal, type Seal, sealExceptionCount, toHeError, wasmHeapBytes } from '@sealbox/he-core'
import type {
  JobResult,
  ProcessingProgress,
  WarmInfo,
  WorkerJob,
  WorkerReply,
  WorkerStats,
} from '../executor/jobMessages.ts'
import { KeyCache } from '../executor/KeyCache.ts'
import { loadedKeySetRefOf } from '../executor/keySetRef.ts'
import type { WorkerSetup } from '../executor/WorkerSetup.ts'
import type { KeyBlobReader } from '../store/KeyStore.ts'
import { openKeyBlobReader } from '../store/openKeyStore.ts'
import { inspectKeys } from './inspectKeys.ts'
import { type JobContext, type PhaseClock, startPhaseClock, type WorkerKeys } from './PhaseClock.ts'
import { runEvaluate } from './runEvaluate.ts'
import { runFault } from './runFault.ts'
import { runSearch } from './runSearch.ts'
import { SearchService } from './SearchService.ts'
import { startThreadCpu } from './threadCpuMs.ts'

/** How the runner is hosted: isolated hosts may crash or hang on purpose (fault tests); inline may not. */
export interface JobRunnerOptions {
  workerId: string
  isolated: boolean
  wasmModule?: WebAssembly.Module
  /** The node's shared diagonal memory (worker threads): see `SearchService.create`. */
  diagonals?: WebAssembly.Memory
  /** Hears how far processing the database is, at most every 10% of the blocks or 5 s. */
  onProgress?: (progress: ProcessingProgress) => void
}

const PROGRESS_INTERVAL_MS = 5000

/** Passes on the first and last block, every tenth of the blocks and at least every 5 s between. */
function throttledProgress(report: (progress: ProcessingProgress) => void): (progress: ProcessingProgress) => void {
  let lastAt = Number.NEGATIVE_INFINITY
  let lastTenth = -1
  return (progress) => {
    const tenth = Math.floor((10 * progress.blocksDone) / progress.blocks)
    const due = progress.milliseconds - lastAt >= PROGRESS_INTERVAL_MS
    if (tenth === lastTenth && !due && progress.blocksDone !== progress.blocks) return
    lastTenth = tenth
    lastAt = progress.milliseconds
    report(progress)
  }
}

/**
 * Does the HE work of every job, wherever it is hosted: a Piscina thread, a child
 * process, or the main thread (inline). Warm-up loads node-seal, builds the search
 * context and processes the database once; every job then reuses them and the
 * per-worker key cache. Failures come back as `failed` results with an HeError,
 * never as exceptions, and the reply says when this worker must be replaced.
 */
export class JobRunner implements JobContext {
  readonly setup: WorkerSetup
  readonly seal: Seal
  readonly search: SearchService
  readonly keys: KeyCache<WorkerKeys>
  readonly reader: KeyBlobReader
  readonly workerId: string
  readonly isolated: boolean
  #jobs = 0
  /** The key-cache version last reported to the scheduler. */
  #reportedKeys = -1
  /**
   * The thread's count of caught SEAL exceptions when this runner's instance was made:
   * inline, the thread outlives its node-seal instances, and only the current one's count.
   */
  readonly #sealExceptionsBefore = sealExceptionCount()

  private constructor(setup: WorkerSetup, seal: Seal, search: SearchService, options: JobRunnerOptions) {
    this.setup = setup
    this.seal = seal
    this.search = search
    this.keys = new KeyCache(setup.keyCacheBytes)
    this.reader = openKeyBlobReader(setup.store)
    this.workerId = options.workerId
    this.isolated = options.isolated
  }

  /** Loads SEAL and processes the database; returns the runner and what it reports as warm. */
  static async create(setup: WorkerSetup, options: JobRunnerOptions): Promise<{ runner: JobRunner; warm: WarmInfo }> {
    const started = performance.now()
    const seal = await loadSeal(options.wasmModule ? { wasmModule: options.wasmModule } : {})
    const search = await SearchService.create(setup, {
      ...(options.onProgress ? { onProgress: throttledProgress(options.onProgress) } : {}),
      // Thread ids start at 1 in workers: 0 (the main thread) is never a builder's id.
      ...(options.diagonals ? { shared: { memory: options.diagonals, builder: threadId + 1 } } : {}),
    })
    const runner = new JobRunner(setup, seal, search, options)
    return {
      runner,
      warm: {
        worker: runner.stats(),
        warmMs: performance.now() - started,
        ...(search.cache ? { cache: search.cache } : {}),
        ...(search.index.diagonals ? { diagonals: { ...search.index.diagonals, attached: search.attached } } : {}),
        search: search.summary,
        catalog: search.catalog,
      },
    }
  }

  /** Runs one job; never throws. */
  async run(job: WorkerJob): Promise<WorkerReply> {
    this.#jobs++
    const started = performance.now()
    // Exact at both ends (each read after a switch, ~0.1 ms): a job's CPU time is never 0.
    const cpu = startThreadCpu()
    const clock = startPhaseClock()
    let result: JobResult
    let failure: HeError | undefined
    try {
      result = await this.#dispatch(job, clock)
    } catch (error) {
      failure = toHeError(error)
      result = { type: 'failed', error: failure.toJSON() }
    }
    // The scheduler mirrors which keys each worker holds (affinity): report changes only.
    const version = this.keys.version
    const cachedKeys = version === this.#reportedKeys ? undefined : this.keys.keys().map(loadedKeySetRefOf)
    this.#reportedKeys = version
    const cpuMs = cpu.elapsedMs()
    return {
      result,
      timings: clock.timings,
      keyCache: clock.keyCache,
      ...(clock.keyTier ? { keyTier: clock.keyTier } : {}),
      ...(clock.fullFormKeys && result.type !== 'failed' ? { fullFormKeys: clock.fullFormKeys } : {}),
      ...(clock.storeForm ? { storeForm: clock.storeForm } : {}),
      ...(clock.kernelFormDamaged ? { kernelFormDamaged: true } : {}),
      ...(cachedKeys ? { cachedKeys } : {}),
      runMs: performance.now() - started,
      // CPU time of this thread on the job: unlike wall time, not inflated when other
      // processes take the machine's cores (the keys benchmark normalises with it).
      // Absent where the system has no exact per-thread clock.
      ...(cpuMs === undefined ? {} : { cpuMs }),
      worker: this.stats(),
      ...this.#recycleReason(failure),
    }
  }

  #dispatch(job: WorkerJob, clock: PhaseClock): Promise<JobResult> {
    switch (job.type) {
      case 'search':
        return runSearch(this, job, clock)
      case 'evaluate':
        return runEvaluate(this, job, clock)
      case 'inspectKeys':
        return inspectKeys(this, job, clock)
      case 'fault':
        return runFault(this, job.fault, job.ms, job.gatePath)
      default: {
        const never: never = job
        throw new HeError('INTERNAL', `unknown job ${JSON.stringify(never)}`)
      }
    }
  }

  #recycleReason(failure: HeError | undefined): Pick<WorkerReply, 'recycle'> {
    // After bad_alloc node-seal deadlocks on the next call: never reuse this instance.
    if (failure?.code === 'OUT_OF_MEMORY') return { recycle: 'outOfMemory' }
    // Each caught C++ exception leaks 16 bytes of a 64 KiB stack; ~4,000 break the instance.
    if (this.#sealExceptions() >= this.setup.sealErrorRecycle) return { recycle: 'sealExceptions' }
    // A WASM heap never shrinks: a worker a big job grew is replaced off the critical
    // path (after this reply), so the next tenant does not start near the 4 GiB cap.
    if ((wasmHeapBytes() ?? 0) > this.setup.heapRecycleBytes) return { recycle: 'heapGrown' }
    return {}
  }

  #sealExceptions(): number {
    return sealExceptionCount() - this.#sealExceptionsBefore
  }

  stats(): WorkerStats {
    const cache = this.keys.stats()
    const heap = wasmHeapBytes()
    return {
      workerId: this.workerId,
      threadId,
      pid: process.pid,
      jobs: this.#jobs,
      sealExceptions: this.#sealExceptions(),
      ...(heap === undefined ? {} : { heapBytes: heap }),
      cacheBytes: cache.bytes,
      cacheEntries: cache.entries,
      cacheHits: cache.hits,
      cacheMisses: cache.misses,
      cacheEvictions: cache.evictions,
    }
  }

  /** Frees the cached keys (the search index lives as long as the thread). */
  dispose(): void {
    this.keys.clear()
  }
}
