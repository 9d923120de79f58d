import { type ParamsInput, parseParams, retireSeal, sharedContextCache } from '@sealbox/he-core'
import { JobRunner } from '../worker/JobRunner.ts'
import { contextBuildUnits, keyLoadUnits } from './coldWorkCost.ts'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'
import { KeyPlacement } from './KeyPlacement.ts'
import { type KeySetRef, keySetCacheKey, keySetOf, loadedKeySetRefOf } from './keySetRef.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** The inline executor's one worker, as its replies name it. */
const INLINE_WORKER = 'inline'

/**
 * Runs HE work on the main event loop. Kept only so the cost can be measured: while
 * a job computes, no other request (health checks included) is answered, and a job
 * cannot be stopped at its deadline — so it runs one job at a time, lets the loop
 * answer what waits before each, and the hub admits only small jobs here
 * (MAX_INLINE_COST, and by measured time with what this instance has yet to build or
 * load for the job: `InlineAdmission`, `coldUnits`). Like a worker, its SEAL instance is replaced when a reply says
 * so after SEAL_ERROR_RECYCLE caught exceptions: the thread cannot be replaced, so
 * the runner, the cached contexts and the node-seal instance are dropped and a fresh
 * WASM instance is made from the same compiled module. Until it
 * is warm again the executor has no free slot; it never makes the server unready.
 */
export class InlineExecutor implements Executor {
  readonly mode = 'inline' as const
  readonly #setup: WorkerSetup
  readonly #events: ExecutorEvents
  readonly #wasmModule: WebAssembly.Module | undefined
  #runner: JobRunner | undefined
  #running = 0
  #replacing: Promise<void> | undefined
  #replacements = 0
  /** Out of memory: the instance must not be touched again, so no more jobs here. */
  #outOfService = false
  #closing = false
  #idle: Array<() => void> = []

  constructor(setup: WorkerSetup, events: ExecutorEvents = {}, wasmModule?: WebAssembly.Module) {
    this.#setup = setup
    this.#events = events
    this.#wasmModule = wasmModule
  }

  async start(): Promise<WarmInfo> {
    const warm = await this.#warmUp()
    this.#events.onCapacity?.()
    return warm
  }

  async #warmUp(): Promise<WarmInfo> {
    const { runner, warm } = await JobRunner.create(this.#setup, {
      workerId: INLINE_WORKER,
      isolated: false,
      onProgress: (progress) => this.#events.onProgress?.(INLINE_WORKER, progress),
      ...(this.#wasmModule ? { wasmModule: this.#wasmModule } : {}),
    })
    this.#runner = runner
    this.#events.onWarm?.(warm)
    return warm
  }

  ready(): boolean {
    return this.#runner !== undefined && this.#replacing === undefined && !this.#outOfService && !this.#closing
  }

  freeSlots(): number {
    return this.ready() ? 1 - this.#running : 0
  }

  /**
   * Cost units of the work `job` would make the loop do before its own because this
   * instance has not done it yet (`coldWorkCost`): building its parameters' context,
   * loading its key set — from the node's bytes cache when `fullFormBytes` knows the key
   * set's full form there, else from the store. Zero once both are at hand.
   */
  coldUnits(job: WorkerJob, fullFormBytes: (keySet: KeySetRef) => number | undefined): number {
    let units = 0
    if (job.type === 'evaluate') {
      try {
        const params = parseParams(job.params as ParamsInput)
        // The thread's shared cache is where the job will look (`acquireHeContext`).
        if (!sharedContextCache().has(params)) units += contextBuildUnits(params)
      } catch {
        // Parameters that do not parse are refused in the job before any context is built.
      }
    }
    // The keys the job loads: a search's part of the set (its Galois elements, in its form), or all of it.
    const keys = KeyPlacement.keysOf(job)
    if ((job.type === 'evaluate' || job.type === 'search') && job.keys && keys && !this.#holdsKeys(keys.keySet)) {
      units += keyLoadUnits({ storedBytes: job.keys.bytes, fullFormBytes: fullFormBytes(keys.keySet) })
    }
    return units
  }

  /** Whether this instance's key cache holds the key set (under any parameters' fingerprint). */
  #holdsKeys(ref: KeySetRef): boolean {
    const wanted = keySetCacheKey(keySetOf(ref))
    return this.#runner?.keys.keys().some((key) => keySetCacheKey(keySetOf(loadedKeySetRefOf(key))) === wanted) ?? false
  }

  /** The event loop, when it may start a job: one worker, scheduled like a pool's. */
  idleWorkers(): string[] {
    return this.freeSlots() > 0 ? [INLINE_WORKER] : []
  }

  async run(job: WorkerJob, _deadline: AbortSignal): Promise<WorkerReply> {
    const runner = this.#runner
    if (!runner || this.#replacing) throw new Error('inline executor is not warm')
    this.#running++
    let reply: WorkerReply | undefined
    try {
      // The loop is served between two inline jobs: without this the next queued job
      // starts in the same turn as the last one ended, and 40 of them block it as one.
      await new Promise((resolve) => setImmediate(resolve))
      reply = await runner.run(job)
      return reply
    } finally {
      this.#running--
      if (reply?.recycle) this.#replace(runner, reply.recycle)
      if (this.#running === 0 && !this.#replacing) this.#wakeIdle()
      this.#events.onCapacity?.()
    }
  }

  recycle(workerId: string, reason: ReplacementReason): boolean {
    const runner = this.#runner
    if (workerId !== INLINE_WORKER || !runner || this.#running > 0 || !this.ready()) return false
    this.#replace(runner, reason)
    return true
  }

  /**
   * Drops the worn instance and warms a fresh one. Its objects are deleted while the
   * instance still works (replacement comes well before node-seal breaks); then
   * nothing references the old WASM heap and the garbage collector frees it. After
   * out-of-memory node-seal deadlocks on the next call, so nothing of that instance
   * may be touched — not even to delete the contexts cached for it — and the
   * executor stays out of service until the server restarts (its jobs time out; the
   * server stays ready). MAX_INLINE_COST keeps inline jobs far from the 4 GiB heap.
   */
  #replace(worn: JobRunner, reason: ReplacementReason): void {
    this.#replacements++
    this.#events.onReplaced?.(INLINE_WORKER, reason)
    this.#runner = undefined
    if (reason === 'outOfMemory') {
      this.#outOfService = true
      return
    }
    this.#replacing = (async () => {
      try {
        worn.dispose()
        worn.search.dispose()
        sharedContextCache().dispose()
        retireSeal()
        // Warming up runs SEAL on the loop (~0.1 s here at n=4096): answer what waits first.
        await new Promise((resolve) => setImmediate(resolve))
        if (!this.#closing) await this.#warmUp()
      } finally {
        this.#replacing = undefined
        this.#wakeIdle()
        this.#events.onCapacity?.()
      }
    })()
  }

  #wakeIdle(): void {
    if (this.#running === 0) for (const wake of this.#idle.splice(0)) wake()
  }

  status(): ExecutorStatus {
    return {
      mode: 'inline',
      size: 1,
      warm: this.ready() ? 1 : 0,
      running: this.#running,
      replacements: this.#replacements,
    }
  }

  async close(): Promise<void> {
    this.#closing = true
    if (this.#running > 0 || this.#replacing) await new Promise<void>((resolve) => this.#idle.push(resolve))
    this.#runner?.dispose()
  }
}
