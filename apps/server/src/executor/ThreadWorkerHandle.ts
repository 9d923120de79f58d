import type { Worker } from 'node:worker_threads'
import { HeError } from '@sealbox/he-core'
import { Piscina } from 'piscina'
import { CHILD_EXEC_ARGV, packageModuleFile } from '../app/packageModule.ts'
import {
  type WorkerDownMessage,
  WorkerReplySchema,
  type WorkerUpMessage,
  WorkerUpMessageSchema,
} from './jobMessages.ts'
import type { WorkerExit, WorkerHandle } from './WorkerHandle.ts'

const WORKER_FILE = packageModuleFile('worker/threadWorker')

/** What every thread of a pool is started with (`threadWorker.ts` reads it). */
export interface ThreadWorkerData {
  setup: unknown
  /** node-seal compiled once on the main thread and posted to every worker. */
  wasmModule?: WebAssembly.Module
  /** The node's shared search-kernel diagonals. */
  diagonals?: WebAssembly.Memory
}

/**
 * A worker thread (`threadWorker.ts`): a single-thread Piscina, which starts the thread with our
 * flags and waits for the module's warm-up before it runs a task. A job is one Piscina task;
 * its result comes back as the job's `reply`. The thread's warm-up and progress messages come
 * on Piscina's `message` event. When the thread is gone the pool is destroyed, so Piscina
 * starts no thread of its own: replacing is the `WorkerSet`'s.
 */
export class ThreadWorkerHandle implements WorkerHandle {
  readonly runtime = 'thread' as const
  readonly id: string
  readonly #pool: Piscina
  readonly #thread: Worker
  readonly #listeners: Array<(message: WorkerUpMessage) => void> = []
  #stopping = false

  private constructor(data: ThreadWorkerData) {
    this.#pool = new Piscina({
      filename: WORKER_FILE,
      minThreads: 1,
      maxThreads: 1,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Idle workers must keep their event loop running (no Atomics.wait between tasks).
      atomics: 'disabled',
      // From source, workers run our .ts files and the package condition points them at src/.
      execArgv: [...CHILD_EXEC_ARGV],
      workerData: data,
    })
    // Piscina starts minThreads in its constructor.
    const thread = this.#pool.threads[0]
    if (!thread) throw new HeError('WORKER_FAILED', 'the worker thread did not start')
    this.#thread = thread
    this.id = `thread-${thread.threadId}`
    this.#pool.on('message', (raw: unknown) => {
      const parsed = WorkerUpMessageSchema.safeParse(raw)
      if (parsed.success) this.#emit(parsed.data)
    })
    // A thread that fails with no task on it (its warm-up threw): its exit reports it.
    this.#pool.on('error', () => undefined)
    thread.once('exit', () => {
      this.#stopping = true
      // After a crash Piscina may have started a thread of its own: the WorkerSet replaces, not it.
      void this.#pool.destroy()
    })
  }

  /** Starts a worker thread with `data`. */
  static start(data: ThreadWorkerData): ThreadWorkerHandle {
    return new ThreadWorkerHandle(data)
  }

  #emit(message: WorkerUpMessage): void {
    for (const listener of this.#listeners) listener(message)
  }

  post(message: WorkerDownMessage): boolean {
    if (this.#stopping) return false
    switch (message.type) {
      case 'job':
        this.#pool.run(message.job).then(
          (reply: unknown) => {
            const parsed = WorkerReplySchema.safeParse(reply)
            if (parsed.success) this.#emit({ type: 'reply', id: message.id, reply: parsed.data })
            else this.terminate()
          },
          // The thread died under the job (its exit fails the job), or failed it outside a
          // reply: a thread that does that is not trusted with another.
          () => this.terminate(),
        )
        return true
      case 'shutdown':
        this.#stopping = true
        // After the task it runs, if any; then Piscina ends the thread.
        void this.#pool.close()
        return true
      default: {
        const never: never = message
        return never
      }
    }
  }

  onMessage(listener: (message: WorkerUpMessage) => void): void {
    this.#listeners.push(listener)
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.#thread.once('exit', (code: number) => listener({ cause: `exit ${code}` }))
  }

  terminate(): void {
    this.#stopping = true
    // Destroying (not terminating the thread alone) keeps Piscina from starting another one.
    void this.#pool.destroy()
  }
}
