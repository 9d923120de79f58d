import type { Executor } from './Executor.ts'
import type { WorkerReply, WorkerStats } from './jobMessages.ts'

/** Workers whose heap the scheduler remembers (far more than any executor runs at once). */
const MAX_REMEMBERED_WORKERS = 256

/**
 * The WASM heap of each worker of one executor, as it last reported it, against the
 * budget one worker may reach (WORKER_HEAP_BYTES): whether a job's estimated peak fits
 * on a worker, and which worker to recycle when no waiting job fits an idle one.
 */
export class WorkerHeaps {
  readonly #budget: number
  /** The WASM heap each worker reported last (when warm, then after every job). */
  readonly #heaps = new Map<string, number>()
  /** Workers warm and not yet given a job: a job that fits no worker may still run on a fresh one. */
  readonly #fresh = new Set<string>()
  /** A worker recycled to make room for a job, until a fresh worker is warm. */
  #making: string | undefined
  /** The smallest heap a warm worker reported: what a recycled worker comes back with. */
  #freshHeap = Number.POSITIVE_INFINITY

  /** `budget`: the heap one worker may reach, bytes (infinite: no budget). */
  constructor(budget: number) {
    this.#budget = budget
  }

  /** A worker became warm: its heap is a fresh worker's (a worker recycled to make room has been replaced). */
  warm(worker: WorkerStats): void {
    if (worker.heapBytes !== undefined) {
      this.#heaps.set(worker.workerId, worker.heapBytes)
      this.#freshHeap = Math.min(this.#freshHeap, worker.heapBytes)
    }
    this.#fresh.add(worker.workerId)
    if (this.#fresh.size > MAX_REMEMBERED_WORKERS) this.#fresh.delete(this.#fresh.values().next().value as string)
    this.#making = undefined
  }

  /** Keeps the heap a reply reports; a worker replaced after it is forgotten (its replacement reports when warm). */
  learn(reply: WorkerReply): void {
    const worker = reply.worker.workerId
    this.#heaps.delete(worker)
    if (reply.recycle || reply.worker.heapBytes === undefined) return
    this.#heaps.set(worker, reply.worker.heapBytes)
    // Workers that died without a reply (a deadline, a crash) are never heard of again: keep the newest few.
    if (this.#heaps.size > MAX_REMEMBERED_WORKERS) this.#heaps.delete(this.#heaps.keys().next().value as string)
  }

  /** The heap `worker` reported last, bytes (0 when it never did). */
  heapOf(worker: string): number {
    return this.#heaps.get(worker) ?? 0
  }

  /** `worker` was given a job: it is no longer fresh. */
  busy(worker: string): void {
    this.#fresh.delete(worker)
  }

  /**
   * Whether a job of estimated peak `peak` may run on `worker` now: it fits on top of the
   * heap the worker reported last, within the budget. A fresh worker takes any job, and so
   * does every worker when not even a fresh one could hold it (an operator may admit
   * jobs above the budget, MAX_JOB_HEAP_BYTES ≥ WORKER_HEAP_BYTES): recycling would not
   * help, and the engine's cap answers 507 if the job really needs more.
   */
  fits(peak: number, worker: string): boolean {
    if (peak === 0 || this.#fresh.has(worker)) return true
    const fresh = Number.isFinite(this.#freshHeap) ? this.#freshHeap : 0
    return this.heapOf(worker) + peak <= this.#budget || fresh + peak > this.#budget
  }

  /**
   * No queue head fits an idle worker: the first one in fair order waits while the idle
   * worker with the largest heap is replaced by a fresh one (the executor's own recycling,
   * off every other job's path); one at a time.
   */
  makeRoom(idle: readonly string[], executor: Executor): void {
    if (this.#making !== undefined || !executor.recycle) return
    const grown = idle.filter((worker) => !this.#fresh.has(worker)).sort((a, b) => this.heapOf(b) - this.heapOf(a))[0]
    if (grown === undefined) return
    if (executor.recycle(grown, 'heapBudget')) {
      this.#making = grown
      this.#heaps.delete(grown)
    }
  }
}
