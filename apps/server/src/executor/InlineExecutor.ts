import { type ParamsInput, parseParams, sharedContextCache } from '@sealbox/he-core'
import { contextBuildUnits, keyLoadUnits } from './coldWorkCost.ts'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import { InlineWorkerHandle } from './InlineWorkerHandle.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'
import { KeyPlacement } from './KeyPlacement.ts'
import { type KeySetRef, keySetCacheKey, keySetOf, loadedKeySetRefOf } from './keySetRef.ts'
import { WorkerSet } from './WorkerSet.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/**
 * Runs HE work on the main event loop (`InlineWorkerHandle`). Kept only so the cost can be
 * measured: while a job computes, no other request (health checks included) is answered, and
 * a job cannot be stopped at its deadline — so it runs one job at a time, lets the loop answer
 * what waits before each, and the hub admits only small jobs here (MAX_INLINE_COST, and by
 * measured time with what this instance has yet to build or load for the job:
 * `InlineAdmission`, `coldUnits`). Like a worker, its SEAL instance is replaced when a reply
 * says so after SEAL_ERROR_RECYCLE caught exceptions (`WorkerSet`): the thread cannot be
 * replaced, so the runner, the cached contexts and the node-seal instance are dropped and a
 * fresh WASM instance is made from the same compiled module. Until it is warm again the
 * executor has no free slot; it never makes the server unready. After out of memory it stays
 * out of service until the server restarts (its jobs time out; the server stays ready):
 * MAX_INLINE_COST keeps inline jobs far from the 4 GiB heap.
 */
export class InlineExecutor implements Executor {
  readonly mode = 'inline' as const
  readonly #workers: WorkerSet
  /** The worker now on the loop (warm or warming). */
  #current: InlineWorkerHandle | undefined
  #closing = false

  constructor(setup: WorkerSetup, events: ExecutorEvents = {}, wasmModule?: WebAssembly.Module) {
    this.#workers = new WorkerSet({
      size: 1,
      spawn: () => {
        this.#current = InlineWorkerHandle.start({
          setup,
          ...(wasmModule ? { wasmModule } : {}),
          closing: () => this.#closing,
        })
        return this.#current
      },
      events,
      noun: 'inline worker',
      deadlines: false,
      replaceable: (reason) => reason !== 'outOfMemory',
    })
  }

  start(): Promise<WarmInfo> {
    return this.#workers.start()
  }

  ready(): boolean {
    return this.#workers.ready()
  }

  freeSlots(): number {
    return this.#workers.freeSlots()
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
    return (
      this.#current?.runner?.keys.keys().some((key) => keySetCacheKey(keySetOf(loadedKeySetRefOf(key))) === wanted) ??
      false
    )
  }

  /** The event loop, when it may start a job: one worker, scheduled like a pool's. */
  idleWorkers(): string[] {
    return this.#workers.idleWorkers()
  }

  run(job: WorkerJob, deadline: AbortSignal): Promise<WorkerReply> {
    return this.#workers.run(job, deadline)
  }

  recycle(workerId: string, reason: ReplacementReason): boolean {
    return this.#workers.recycle(workerId, reason)
  }

  status(): ExecutorStatus {
    return {
      mode: 'inline',
      size: 1,
      warm: this.#workers.inService(),
      running: this.#workers.running,
      replacements: this.#workers.replacements,
    }
  }

  /** Waits for the job on the loop, then drops the runner. */
  close(): Promise<void> {
    this.#closing = true
    return this.#workers.close()
  }
}
