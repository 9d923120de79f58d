import { type ChildProcess, fork } from 'node:child_process'
import { HeError } from '@sealbox/he-core'
import { CHILD_EXEC_ARGV, packageModuleFile } from '../app/packageModule.ts'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import {
  type ProcessDownMessage,
  type ProcessUpMessage,
  ProcessUpMessageSchema,
  type WarmInfo,
  type WorkerJob,
  type WorkerReply,
} from './jobMessages.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

const CHILD_FILE = packageModuleFile('worker/processWorker')

/** Options of the child-process executor. */
export interface ProcessExecutorOptions {
  setup: WorkerSetup
  processes: number
  events?: ExecutorEvents
}

interface Pending {
  id: number
  resolve(reply: WorkerReply): void
  reject(error: unknown): void
}

interface Child {
  process: ChildProcess
  warm: boolean
  retiring: boolean
  /** Set when we killed it, so its exit is not reported as a crash. */
  killedFor: ReplacementReason | undefined
  pending: Pending | undefined
}

/**
 * Runs HE work in child processes: the isolation the Swift study used (a separate
 * process per HE worker; the server README's "Why isolation matters" says which study). Messages go over Node's IPC channel with `serialization:
 * 'advanced'` (structured clone: Uint8Arrays stay Uint8Arrays) and are zod-validated on
 * arrival. Measured against the hand-framed Unix socket it replaced, a 571 KB query and
 * its 105 KB reply made the round trip in 0.60× the time (0.53 vs 0.88 ms;
 * packages/bench/results/retired-experiments.md). Each child holds a warm node-seal instance and its own key cache; a
 * crashed, worn-out or overdue child is killed and respawned.
 */
export class ProcessExecutor implements Executor {
  readonly mode = 'process' as const
  readonly #options: ProcessExecutorOptions
  readonly #events: ExecutorEvents
  readonly #children = new Set<Child>()
  #nextJobId = 1
  #running = 0
  #replacements = 0
  #closing = false
  #everWarm = false
  #failStart: ((error: HeError) => void) | undefined

  constructor(options: ProcessExecutorOptions) {
    this.#options = options
    this.#events = options.events ?? {}
  }

  start(): Promise<WarmInfo> {
    return new Promise<WarmInfo>((resolve, reject) => {
      const onWarm = this.#events.onWarm
      this.#events.onWarm = (info) => {
        onWarm?.(info)
        resolve(info)
      }
      this.#failStart = reject
      for (let i = 0; i < this.#options.processes; i++) this.#spawn()
    })
  }

  #spawn(): void {
    const child = fork(CHILD_FILE, [], {
      execArgv: [...CHILD_EXEC_ARGV],
      serialization: 'advanced',
      env: { ...process.env, SEALBOX_WORKER_SETUP: JSON.stringify(this.#options.setup) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const entry: Child = { process: child, warm: false, retiring: false, killedFor: undefined, pending: undefined }
    this.#children.add(entry)
    child.on('message', (raw) => {
      const parsed = ProcessUpMessageSchema.safeParse(raw)
      // A child that says something we do not understand is not one of ours any more.
      if (parsed.success) this.#onMessage(entry, parsed.data)
      else child.kill('SIGKILL')
    })
    child.on('exit', (code, signal) => this.#onExit(entry, code, signal))
    child.on('error', () => undefined)
  }

  #send(child: Child, message: ProcessDownMessage): boolean {
    if (!child.process.connected) return false
    child.process.send(message)
    return true
  }

  #onMessage(child: Child, message: ProcessUpMessage): void {
    switch (message.type) {
      case 'warm':
        child.warm = true
        this.#everWarm = true
        this.#events.onWarm?.(message.info)
        this.#events.onCapacity?.()
        return
      case 'progress':
        this.#events.onProgress?.(message.workerId, message.progress)
        return
      case 'warmFailed':
        if (!this.#everWarm) this.#failStart?.(HeError.fromJSON(message.error))
        return
      case 'reply': {
        const pending = child.pending
        if (!pending || pending.id !== message.id) return
        child.pending = undefined
        if (message.reply.recycle) this.#retire(child, message.reply.recycle)
        pending.resolve(message.reply)
        return
      }
      default: {
        const never: never = message
        throw new Error(`unknown message ${JSON.stringify(never)}`)
      }
    }
  }

  #onExit(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    this.#children.delete(child)
    const pending = child.pending
    child.pending = undefined
    const reason: ReplacementReason = child.killedFor ?? 'crashed'
    if (pending) {
      pending.reject(
        reason === 'timeout'
          ? new HeError('TIMEOUT', 'the job ran past the request timeout; its worker process was replaced')
          : new HeError('WORKER_FAILED', `the worker process died (${signal ?? `exit ${code}`}); it is being replaced`),
      )
    }
    if (this.#closing) return
    if (!child.warm && !child.retiring && !this.#everWarm) {
      // Children that die before ever getting warm would die again: stop here.
      this.#failStart?.(new HeError('WORKER_FAILED', `a worker process failed to start (${signal ?? `exit ${code}`})`))
      return
    }
    if (!child.retiring) {
      this.#replacements++
      this.#events.onReplaced?.(`process-${child.process.pid}`, reason)
    }
    this.#spawn()
  }

  recycle(workerId: string, reason: ReplacementReason): boolean {
    const child = [...this.#children].find(
      (c) => `process-${c.process.pid}` === workerId && c.warm && !c.retiring && !c.pending,
    )
    if (!child || this.#closing) return false
    this.#retire(child, reason)
    return true
  }

  #retire(child: Child, reason: ReplacementReason): void {
    child.retiring = true
    child.killedFor = reason
    this.#replacements++
    this.#events.onReplaced?.(`process-${child.process.pid}`, reason)
    this.#send(child, { type: 'shutdown' })
  }

  #idleChild(): Child | undefined {
    for (const child of this.#children) if (child.warm && !child.retiring && !child.pending) return child
    return undefined
  }

  ready(): boolean {
    return !this.#closing && this.#inService() >= this.#options.processes
  }

  #inService(): number {
    let count = 0
    for (const child of this.#children) if (child.warm && !child.retiring) count++
    return count
  }

  freeSlots(): number {
    if (this.#closing) return 0
    let free = 0
    for (const child of this.#children) if (child.warm && !child.retiring && !child.pending) free++
    return free
  }

  idleWorkers(): string[] {
    if (this.#closing) return []
    const idle: string[] = []
    for (const child of this.#children) {
      if (child.warm && !child.retiring && !child.pending) idle.push(`process-${child.process.pid}`)
    }
    return idle
  }

  run(job: WorkerJob, deadline: AbortSignal, workerId?: string): Promise<WorkerReply> {
    // The scheduler's choice (affinity) when that child is free, else any free child.
    const chosen = [...this.#children].find(
      (c) => `process-${c.process.pid}` === workerId && c.warm && !c.retiring && !c.pending,
    )
    const child = chosen ?? this.#idleChild()
    if (!child?.process.connected) return Promise.reject(new HeError('OVERLOADED', 'no worker process is free'))
    this.#running++
    const id = this.#nextJobId++
    return new Promise<WorkerReply>((resolve, reject) => {
      const onDeadline = () => {
        // A job that overstays (a hung or out-of-memory instance) is stopped the only sure way.
        child.killedFor = 'timeout'
        child.retiring = true
        child.process.kill('SIGKILL')
      }
      deadline.addEventListener('abort', onDeadline, { once: true })
      const done = () => {
        deadline.removeEventListener('abort', onDeadline)
        this.#running--
        this.#events.onCapacity?.()
      }
      child.pending = {
        id,
        resolve: (reply) => {
          done()
          resolve(reply)
        },
        reject: (error) => {
          done()
          reject(error)
        },
      }
      this.#send(child, { type: 'job', id, job })
    })
  }

  status(): ExecutorStatus {
    return {
      mode: 'process',
      size: this.#options.processes,
      warm: this.#inService(),
      running: this.#running,
      replacements: this.#replacements,
    }
  }

  async close(): Promise<void> {
    this.#closing = true
    const exits = [...this.#children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.process.exitCode !== null || child.process.signalCode !== null) return resolve()
          child.process.once('exit', () => resolve())
          if (!this.#send(child, { type: 'shutdown' })) child.process.kill('SIGTERM')
          // A child that does not stop within 5 s is killed.
          setTimeout(() => child.process.kill('SIGKILL'), 5000).unref()
        }),
    )
    await Promise.all(exits)
  }
}
