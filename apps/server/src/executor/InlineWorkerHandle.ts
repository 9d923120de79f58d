import { HeError, retireSeal, sharedContextCache, toHeError } from '@sealbox/he-core'
import { JobRunner } from '../worker/JobRunner.ts'
import type { WorkerDownMessage, WorkerUpMessage } from './jobMessages.ts'
import type { WorkerExit, WorkerHandle } from './WorkerHandle.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** The inline worker, as its replies name it. */
export const INLINE_WORKER = 'inline'

/** Options of an inline worker. */
export interface InlineWorkerOptions {
  setup: WorkerSetup
  wasmModule?: WebAssembly.Module
  /** True once the executor closes: a shutdown then only drops the runner (the server is going). */
  closing(): boolean
}

/** The event loop's turn to answer what waits (health checks, other requests). */
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve))

/**
 * A worker on the server's own event loop: a `JobRunner` with its own node-seal instance, run
 * one job at a time, letting the loop answer what waits before each. Nothing can stop it in
 * the middle of a job, so `terminate` only stops it taking more. Shutting it down to replace
 * it drops the worn instance: its objects are deleted while it still works (replacement comes
 * well before node-seal breaks), the contexts cached for it too, and SEAL is retired, so the
 * next worker makes a fresh WASM instance from the same compiled module. After out of memory
 * node-seal deadlocks on the next call, so nothing of that instance is touched at all.
 */
export class InlineWorkerHandle implements WorkerHandle {
  readonly runtime = 'inline' as const
  readonly id = INLINE_WORKER
  readonly #options: InlineWorkerOptions
  readonly #listeners: Array<(message: WorkerUpMessage) => void> = []
  readonly #exitListeners: Array<(exit: WorkerExit) => void> = []
  /** Warm-up, then each job and the shutdown, in the order posted. */
  #queue: Promise<void>
  #runner: JobRunner | undefined
  #stopping = false
  #exited = false
  /** Out of memory: the instance must not be touched again. */
  #poisoned = false

  private constructor(options: InlineWorkerOptions) {
    this.#options = options
    this.#queue = this.#warmUp()
  }

  /** Starts warming up an inline worker (after the loop's next turn). */
  static start(options: InlineWorkerOptions): InlineWorkerHandle {
    return new InlineWorkerHandle(options)
  }

  /** The warm runner, for what the executor asks of its caches; undefined before warm-up or once out of service. */
  get runner(): JobRunner | undefined {
    return this.#poisoned ? undefined : this.#runner
  }

  async #warmUp(): Promise<void> {
    // Warming up runs SEAL on the loop (~0.1 s here at n=4096): answer what waits first.
    await yieldToLoop()
    if (this.#stopping) return
    try {
      const { runner, warm } = await JobRunner.create(this.#options.setup, {
        workerId: INLINE_WORKER,
        isolated: false,
        onProgress: (progress) => this.#emit({ type: 'progress', workerId: INLINE_WORKER, progress }),
        ...(this.#options.wasmModule ? { wasmModule: this.#options.wasmModule } : {}),
      })
      this.#runner = runner
      this.#emit({ type: 'warm', info: warm })
    } catch (error) {
      // It stays, never warm: the executor has no free slot (a fresh try would fail the same way).
      this.#emit({ type: 'warmFailed', error: toHeError(error).toJSON() })
    }
  }

  #emit(message: WorkerUpMessage): void {
    for (const listener of this.#listeners) listener(message)
  }

  post(message: WorkerDownMessage): boolean {
    if (this.#stopping) return false
    switch (message.type) {
      case 'job':
        this.#enqueue(async () => {
          const runner = this.#runner
          // The WorkerSet posts jobs only to a warm worker.
          if (!runner) throw new HeError('INTERNAL', 'the inline worker got a job before it was warm')
          // The loop is served between two inline jobs: without this the next queued job
          // starts in the same turn as the last one ended, and 40 of them block it as one.
          await yieldToLoop()
          const reply = await runner.run(message.job)
          if (reply.recycle === 'outOfMemory') this.#poisoned = true
          this.#emit({ type: 'reply', id: message.id, reply })
        })
        return true
      case 'shutdown':
        this.#stopping = true
        this.#enqueue(async () => this.#stop())
        return true
      default: {
        const never: never = message
        return never
      }
    }
  }

  #enqueue(step: () => Promise<void>): void {
    this.#queue = this.#queue.then(step).catch((error: unknown) => {
      // A job's own failures come back in its reply: anything else leaves the instance unknown.
      this.#poisoned = true
      this.#stopping = true
      this.#exit(`failed: ${toHeError(error).message}`)
    })
  }

  #stop(): void {
    const worn = this.#runner
    this.#runner = undefined
    if (worn && !this.#poisoned) {
      worn.dispose()
      if (!this.#options.closing()) {
        worn.search.dispose()
        sharedContextCache().dispose()
        retireSeal()
      }
    }
    this.#exit('shut down')
  }

  #exit(cause: string): void {
    if (this.#exited) return
    this.#exited = true
    for (const listener of this.#exitListeners.splice(0)) listener({ cause })
  }

  onMessage(listener: (message: WorkerUpMessage) => void): void {
    this.#listeners.push(listener)
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.#exitListeners.push(listener)
  }

  /** Takes no more jobs, and shuts down after the one it runs (a job on the loop cannot be stopped). */
  terminate(): void {
    if (this.#stopping) return
    this.#stopping = true
    this.#enqueue(async () => this.#stop())
  }
}
