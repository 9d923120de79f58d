import { HeError, isHeErrorCode } from '@sealbox/he-core'
import { PendingReplies } from '@sealbox/he-core/client'
import {
  type ProgressReply,
  REPLY_TYPE,
  type ReplyOf,
  type RequestOf,
  type WorkerErrorJSON,
  type WorkerRequest,
  type WorkerRequestType,
  workerReply,
} from './protocol.ts'

/** Options of one request. */
export interface RequestOptions {
  /** Called for each progress report of this request. */
  onProgress?: (progress: ProgressReply) => void
  /** Buffers to hand over to the worker (they become unusable here). */
  transfer?: Transferable[]
}

/** What a pending request must know when a reply with its id arrives. */
interface Expected {
  expect: string
  onProgress: ((progress: ProgressReply) => void) | undefined
}

/** More crashes than this within the window and the worker stays down (the page says why). */
const MAX_CRASHES = 3
const CRASH_WINDOW_MS = 60_000

/** Makes a worker; a factory so a cancelled worker can be replaced. */
export type WorkerFactory = () => Worker

/** The page's side of the SEAL worker protocol: typed requests, correlated replies, cancel by restart. */
export class SealWorkerClient {
  readonly #factory: WorkerFactory
  readonly #pending = new PendingReplies<unknown, Expected>()
  readonly #restartListeners = new Set<() => void>()
  #worker: Worker
  /** Recent crash times: a worker that keeps crashing is not restarted forever. */
  #crashes: number[] = []

  constructor(factory: WorkerFactory) {
    this.#factory = factory
    this.#worker = this.#spawn()
  }

  /** Sends `request` and resolves with its final reply, or rejects with an `HeError`. */
  request<T extends WorkerRequestType>(
    request: RequestOf<T> & { type: T },
    options: RequestOptions = {},
  ): Promise<ReplyOf<T>> {
    const reply = this.#pending.request(
      (id) => this.#worker.postMessage({ ...request, id } as WorkerRequest, options.transfer ?? []),
      { context: { expect: REPLY_TYPE[request.type], onProgress: options.onProgress } },
    )
    // The reply's type was checked against REPLY_TYPE on arrival.
    return reply as Promise<ReplyOf<T>>
  }

  /** Requests still waiting for their reply. */
  get busy(): boolean {
    return this.#pending.size > 0
  }

  /**
   * Stops whatever the worker is doing by terminating it (SEAL calls cannot be
   * interrupted), fails every pending request with CANCELLED, and starts a fresh
   * worker. Listeners then restore the workspace into it.
   */
  cancel(): void {
    this.#worker.terminate()
    this.#failAll(new HeError('CANCELLED', 'Cancelled. The SEAL worker was restarted.'))
    this.#worker = this.#spawn()
    for (const listener of this.#restartListeners) listener()
  }

  /** Called after every restart (cancel or crash): the new worker holds nothing yet. */
  onRestart(listener: () => void): () => void {
    this.#restartListeners.add(listener)
    return () => this.#restartListeners.delete(listener)
  }

  dispose(): void {
    this.#worker.terminate()
    this.#failAll(new HeError('CANCELLED', 'The SEAL worker was shut down.'))
  }

  #spawn(): Worker {
    const worker = this.#factory()
    worker.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data)
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault()
      // An uncaught error or a failed module load: the worker is unusable.
      this.#failAll(new HeError('WORKER_FAILED', `The SEAL worker failed: ${event.message || 'it could not start'}`))
      if (this.#worker !== worker) return
      worker.terminate()
      const now = Date.now()
      this.#crashes = [...this.#crashes.filter((t) => now - t < CRASH_WINDOW_MS), now]
      if (this.#crashes.length > MAX_CRASHES) return
      this.#worker = this.#spawn()
      for (const listener of this.#restartListeners) listener()
    }
    return worker
  }

  #receive(data: unknown): void {
    const parsed = workerReply.safeParse(data)
    if (!parsed.success) {
      this.#failAll(
        new HeError('WORKER_FAILED', `The SEAL worker sent a malformed reply: ${parsed.error.issues[0]?.message}`),
      )
      return
    }
    const reply = parsed.data
    const expected = this.#pending.contextOf(reply.id)
    if (!expected) return
    if (reply.type === 'progress') {
      expected.onProgress?.(reply)
      return
    }
    if (reply.type === 'failed') this.#pending.reject(reply.id, errorFromJson(reply.error))
    else if (reply.type !== expected.expect) {
      this.#pending.reject(
        reply.id,
        new HeError('WORKER_FAILED', `expected a ${expected.expect} reply, got ${reply.type}`),
      )
    } else this.#pending.resolve(reply.id, reply)
  }

  #failAll(error: HeError): void {
    this.#pending.rejectAll(error)
  }
}

function errorFromJson(json: WorkerErrorJSON): HeError {
  const code = isHeErrorCode(json.code) ? json.code : 'INTERNAL'
  return new HeError(code, json.message, json.details === undefined ? {} : { details: json.details })
}
