import { HeError } from '../errors/HeError.ts'

/** Options of one request that waits for its reply. */
export interface PendingRequestOptions<Context> {
  /** No reply within this many milliseconds: `onTimeout` runs (by default the request fails with TIMEOUT). */
  timeoutMs?: number
  /**
   * What a timeout does instead of failing only this request with `TIMEOUT` (e.g. give up on
   * the whole peer with `fail`). It must settle the request, directly or through `fail`.
   */
  onTimeout?: (id: number) => void
  /** Kept with the request until it settles (`contextOf`): what the caller must know on its reply. */
  context?: Context
}

interface Entry<Reply, Context> {
  resolve(reply: Reply): void
  reject(error: unknown): void
  timer: ReturnType<typeof setTimeout> | undefined
  context: Context | undefined
}

/** Options of a `PendingReplies`. */
export interface PendingRepliesOptions {
  /** The first request's id (the wire format of the channel may fix it); 1 by default. */
  firstId?: number
}

/**
 * Request/reply by id over any one-way channel — a worker's `postMessage`, a child's IPC
 * channel, a long poll: numbers the requests, keeps what each waits for, settles it when the
 * reply that carries its id arrives, times it out, and rejects everything pending when the peer
 * dies. One per peer; the caller validates what arrives and reads the id out of it. Runs
 * unchanged in Node and in browsers.
 */
export class PendingReplies<Reply, Context = undefined> {
  readonly #pending = new Map<number, Entry<Reply, Context>>()
  #nextId: number
  /** Set by `fail`: the peer is gone for good, and every later request fails with this. */
  #failure: { error: unknown } | undefined

  constructor(options: PendingRepliesOptions = {}) {
    this.#nextId = options.firstId ?? 1
  }

  /**
   * Registers a request under a fresh id, then calls `send(id)` to put it on the channel, and
   * resolves with the reply `resolve(id, …)` hands over. A `send` that throws fails the request
   * with what it threw.
   */
  request(send: (id: number) => void, options: PendingRequestOptions<Context> = {}): Promise<Reply> {
    if (this.#failure) return Promise.reject(this.#failure.error)
    const id = this.#nextId++
    return new Promise<Reply>((resolve, reject) => {
      const { timeoutMs, onTimeout } = options
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (onTimeout) onTimeout(id)
              else this.reject(id, new HeError('TIMEOUT', `no reply to request ${id} within ${timeoutMs} ms`))
            }, timeoutMs)
      this.#pending.set(id, { resolve, reject, timer, context: options.context })
      try {
        send(id)
      } catch (error) {
        this.reject(id, error)
      }
    })
  }

  /** Settles request `id` with its reply; false when no such request waits (late, or a stranger's id). */
  resolve(id: number, reply: Reply): boolean {
    const entry = this.#take(id)
    entry?.resolve(reply)
    return entry !== undefined
  }

  /** Fails request `id`; false when no such request waits. */
  reject(id: number, error: unknown): boolean {
    const entry = this.#take(id)
    entry?.reject(error)
    return entry !== undefined
  }

  /** Fails every request now pending (a peer that restarts keeps taking new ones). */
  rejectAll(error: unknown): void {
    for (const id of [...this.#pending.keys()]) this.reject(id, error)
  }

  /** The peer is gone for good: fails every pending request, and every later one, with `error` (the first one given). */
  fail(error: unknown): void {
    if (this.#failure) return
    this.#failure = { error }
    this.rejectAll(error)
  }

  /** The context request `id` was made with; undefined when it is not pending. */
  contextOf(id: number): Context | undefined {
    return this.#pending.get(id)?.context
  }

  /** Whether request `id` still waits for its reply. */
  has(id: number): boolean {
    return this.#pending.has(id)
  }

  /** Requests waiting for their reply. */
  get size(): number {
    return this.#pending.size
  }

  #take(id: number): Entry<Reply, Context> | undefined {
    const entry = this.#pending.get(id)
    if (!entry) return undefined
    this.#pending.delete(id)
    if (entry.timer !== undefined) clearTimeout(entry.timer)
    return entry
  }
}
