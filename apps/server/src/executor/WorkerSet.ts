import { HeError } from '@sealbox/he-core'
import { PendingReplies } from '@sealbox/he-core/client'
import type { ExecutorEvents, ReplacementReason } from './Executor.ts'
import type { WarmInfo, WorkerJob, WorkerReply, WorkerUpMessage } from './jobMessages.ts'
import type { SpawnWorker, WorkerExit, WorkerHandle } from './WorkerHandle.ts'

/** Options of a `WorkerSet`. */
export interface WorkerSetOptions {
  /** Workers wanted in service. */
  size: number
  spawn: SpawnWorker
  events: ExecutorEvents
  /** How errors name one worker: `worker process`, `worker`. */
  noun: string
  /** Closing: a worker that has not exited this long after `shutdown` is terminated (ms). */
  shutdownGraceMs?: number
  /**
   * Whether a job is stopped at its deadline by terminating its worker (default true). The
   * inline runtime cannot be stopped: its deadline only answers the request.
   */
  deadlines?: boolean
  /** A reason to replace a worker as soon as it is warm (e.g. the heap it built warming up). */
  retireWhenWarm?(info: WarmInfo, workerId: string): ReplacementReason | undefined
  /** Whether a worker retired for `reason` is replaced (default: always). */
  replaceable?(reason: ReplacementReason): boolean
  /** A worker is gone, before its replacement is spawned. */
  onWorkerExit?(workerId: string): void
}

interface Member {
  handle: WorkerHandle
  warm: boolean
  /** Taking no new job: told to shut down, or being terminated. */
  retiring: boolean
  /** Why we stopped it, so its exit is not reported as a crash. */
  stoppedFor: ReplacementReason | undefined
  /** Its job, by id (one at a time: the scheduler only sends a job to an idle worker). */
  replies: PendingReplies<WorkerReply>
  exited: Promise<void>
}

/**
 * The lifecycle of an executor's workers, whatever they run in (`WorkerHandle`): spawns
 * `size` of them, counts a worker in service once it says `warm`, runs one job at a time on an
 * idle one (the one asked for when it is idle), terminates a worker whose job overstays its
 * deadline, retires a worker whose reply asks for it (worn SEAL instance, grown heap) or that
 * the scheduler recycles, and spawns a replacement for every worker that exits — crashed,
 * killed or retired — while the set is open. Start-up fails when a worker cannot warm up
 * before any has.
 */
export class WorkerSet {
  readonly #options: WorkerSetOptions
  readonly #events: ExecutorEvents
  readonly #members = new Set<Member>()
  #running = 0
  #replacements = 0
  #closing = false
  #everWarm = false
  #started: { resolve(info: WarmInfo): void; reject(error: HeError): void } | undefined

  constructor(options: WorkerSetOptions) {
    this.#options = options
    this.#events = options.events
  }

  /** Spawns the workers; resolves with the first warm-up (`ready()` tracks the rest). */
  start(): Promise<WarmInfo> {
    return new Promise<WarmInfo>((resolve, reject) => {
      this.#started = { resolve, reject }
      for (let i = 0; i < this.#options.size; i++) this.#spawn()
    })
  }

  #spawn(): void {
    const handle = this.#options.spawn()
    let exited: () => void = () => undefined
    const member: Member = {
      handle,
      warm: false,
      retiring: false,
      stoppedFor: undefined,
      replies: new PendingReplies<WorkerReply>(),
      exited: new Promise<void>((resolve) => {
        exited = resolve
      }),
    }
    this.#members.add(member)
    handle.onMessage((message) => this.#onMessage(member, message))
    handle.onExit((exit) => {
      exited()
      this.#onExit(member, exit)
    })
  }

  #onMessage(member: Member, message: WorkerUpMessage): void {
    switch (message.type) {
      case 'warm':
        member.warm = true
        this.#everWarm = true
        {
          const reason = this.#options.retireWhenWarm?.(message.info, member.handle.id)
          if (reason) this.#retire(member, reason)
        }
        this.#events.onWarm?.(message.info)
        this.#started?.resolve(message.info)
        this.#events.onCapacity?.()
        return
      case 'progress':
        this.#events.onProgress?.(message.workerId, message.progress)
        return
      case 'warmFailed':
        if (!this.#everWarm) this.#started?.reject(HeError.fromJSON(message.error))
        return
      case 'reply':
        // Before the job's caller hears of it: the worker must take no other job.
        if (member.replies.has(message.id) && message.reply.recycle) this.#retire(member, message.reply.recycle)
        member.replies.resolve(message.id, message.reply)
        return
      default: {
        const never: never = message
        throw new HeError('INTERNAL', `unknown worker message ${JSON.stringify(never)}`)
      }
    }
  }

  #onExit(member: Member, exit: WorkerExit): void {
    this.#members.delete(member)
    const { noun } = this.#options
    const reason: ReplacementReason = member.stoppedFor ?? 'crashed'
    member.replies.fail(
      reason === 'timeout'
        ? new HeError('TIMEOUT', `the job ran past the request timeout; its ${noun} was replaced`)
        : new HeError('WORKER_FAILED', `the ${noun} died (${exit.cause}); it is being replaced`),
    )
    this.#options.onWorkerExit?.(member.handle.id)
    if (this.#closing) return
    if (!member.warm && !member.retiring && !this.#everWarm) {
      // Workers that die before ever getting warm would die again: stop here.
      this.#started?.reject(new HeError('WORKER_FAILED', `a ${noun} failed to start (${exit.cause})`))
      return
    }
    if (!member.retiring) this.#replaced(member, reason)
    if (this.#options.replaceable?.(reason) ?? true) this.#spawn()
  }

  #replaced(member: Member, reason: ReplacementReason): void {
    this.#replacements++
    this.#events.onReplaced?.(member.handle.id, reason)
  }

  /** Takes a worker out of service: it finishes what it has, is told to shut down, and is replaced when it exits. */
  #retire(member: Member, reason: ReplacementReason): void {
    member.retiring = true
    member.stoppedFor = reason
    this.#replaced(member, reason)
    if (!member.handle.post({ type: 'shutdown' })) member.handle.terminate()
  }

  #idle(member: Member): boolean {
    return member.warm && !member.retiring && member.replies.size === 0
  }

  /** Workers warm and in service. */
  inService(): number {
    let count = 0
    for (const member of this.#members) if (member.warm && !member.retiring) count++
    return count
  }

  /** True when every worker wanted is warm and in service. */
  ready(): boolean {
    return !this.#closing && this.inService() >= this.#options.size
  }

  freeSlots(): number {
    return this.idleWorkers().length
  }

  idleWorkers(): string[] {
    if (this.#closing) return []
    return [...this.#members].filter((member) => this.#idle(member)).map((member) => member.handle.id)
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running
  }

  /** Workers taken out of service so far (each one replaced). */
  get replacements(): number {
    return this.#replacements
  }

  /**
   * Runs `job` on worker `workerId` when it is idle, else on any idle worker. At the deadline
   * the worker is terminated (nothing else stops a hung SEAL call): the job fails with TIMEOUT
   * and the worker is replaced. A worker that dies under the job fails it with WORKER_FAILED.
   */
  run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply> {
    const idle = [...this.#members].filter((member) => this.#idle(member))
    const member = idle.find((m) => m.handle.id === workerId) ?? idle[0]
    if (!member || this.#closing) {
      return Promise.reject(new HeError('OVERLOADED', `no ${this.#options.noun} is free`))
    }
    this.#running++
    const onDeadline = () => {
      if (member.retiring) return
      member.retiring = true
      member.stoppedFor = 'timeout'
      this.#replaced(member, 'timeout')
      member.handle.terminate()
    }
    if (this.#options.deadlines ?? true) deadline.addEventListener('abort', onDeadline, { once: true })
    const done = () => {
      deadline.removeEventListener('abort', onDeadline)
      this.#running--
      this.#events.onCapacity?.()
    }
    const reply = member.replies.request((id) => {
      // Its channel closed since it was idle: it is on its way out, and its replacement will be free.
      if (!member.handle.post({ type: 'job', id, job })) {
        throw new HeError('OVERLOADED', `no ${this.#options.noun} is free`)
      }
    })
    return reply.finally(done)
  }

  /** Replaces idle worker `workerId` with a fresh one; false when it is not an idle worker in service. */
  recycle(workerId: string, reason: ReplacementReason): boolean {
    const member = [...this.#members].find((m) => m.handle.id === workerId && this.#idle(m))
    if (!member || this.#closing) return false
    this.#retire(member, reason)
    return true
  }

  /** Tells every worker to shut down (after the job it runs) and waits for all to exit. */
  async close(): Promise<void> {
    this.#closing = true
    const grace = this.#options.shutdownGraceMs ?? 5000
    await Promise.all(
      [...this.#members].map((member) => {
        if (!member.handle.post({ type: 'shutdown' })) member.handle.terminate()
        // A worker that does not stop in time is killed.
        const timer = setTimeout(() => member.handle.terminate(), grace)
        timer.unref?.()
        return member.exited.finally(() => clearTimeout(timer))
      }),
    )
  }
}
