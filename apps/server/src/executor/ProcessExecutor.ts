import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { unlink } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HeError } from '@sealbox/he-core'
import type { Executor, ExecutorEvents, ExecutorStatus, ReplacementReason } from './Executor.ts'
import { FramedSocket } from './FramedSocket.ts'
import {
  type ProcessDownMessage,
  type ProcessUpMessage,
  ProcessUpMessageSchema,
  type WarmInfo,
  type WorkerJob,
  type WorkerReply,
} from './jobMessages.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

const CHILD_FILE = fileURLToPath(new URL('../worker/processWorker.ts', import.meta.url))

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
  nonce: string
  channel: FramedSocket<ProcessUpMessage, ProcessDownMessage> | undefined
  warm: boolean
  retiring: boolean
  /** Set when we killed it, so its exit is not reported as a crash. */
  killedFor: ReplacementReason | undefined
  pending: Pending | undefined
}

/**
 * Runs HE work in child processes that talk to the server over a Unix socket with
 * length-prefixed, zod-validated messages: the isolation the Swift study used
 * (a separate process per HE worker). Each child holds a warm node-seal instance and
 * its own key cache; a crashed, worn-out or overdue child is killed and respawned.
 */
export class ProcessExecutor implements Executor {
  readonly mode = 'process' as const
  readonly #options: ProcessExecutorOptions
  readonly #events: ExecutorEvents
  readonly #socketPath = join(tmpdir(), `sealbox-${process.pid}-${randomBytes(4).toString('hex')}.sock`)
  readonly #children = new Set<Child>()
  #server: Server | undefined
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

  async start(): Promise<WarmInfo> {
    await unlink(this.#socketPath).catch(() => undefined)
    const server = createServer((socket) => this.#accept(socket))
    this.#server = server
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.#socketPath, () => resolve())
    })
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
    const nonce = randomBytes(16).toString('hex')
    const child = spawn(process.execPath, ['--conditions=@sealbox/source', CHILD_FILE], {
      env: {
        ...process.env,
        SEALBOX_WORKER_SOCKET: this.#socketPath,
        SEALBOX_WORKER_NONCE: nonce,
        SEALBOX_WORKER_SETUP: JSON.stringify(this.#options.setup),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    const entry: Child = {
      process: child,
      nonce,
      channel: undefined,
      warm: false,
      retiring: false,
      killedFor: undefined,
      pending: undefined,
    }
    this.#children.add(entry)
    child.on('exit', (code, signal) => this.#onExit(entry, code, signal))
    child.on('error', () => undefined)
  }

  #accept(socket: Socket): void {
    let owner: Child | undefined
    const channel = new FramedSocket<ProcessUpMessage, ProcessDownMessage>(
      socket,
      ProcessUpMessageSchema,
      (message) => {
        if (message.type === 'hello') {
          // Only our own children know a nonce: anyone else on the socket is dropped.
          const child = [...this.#children].find((c) => c.nonce === message.nonce && c.process.pid === message.pid)
          if (!child || child.channel) {
            socket.destroy()
            return
          }
          child.channel = channel
          owner = child
          return
        }
        if (owner) this.#onMessage(owner, message)
        else socket.destroy()
      },
    )
    socket.on('error', () => undefined)
  }

  #onMessage(child: Child, message: ProcessUpMessage): void {
    switch (message.type) {
      case 'hello':
        return
      case 'warm':
        child.warm = true
        this.#everWarm = true
        this.#events.onWarm?.(message.info)
        this.#events.onCapacity?.()
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
    child.channel?.socket.destroy()
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

  #retire(child: Child, reason: ReplacementReason): void {
    child.retiring = true
    child.killedFor = reason
    this.#replacements++
    this.#events.onReplaced?.(`process-${child.process.pid}`, reason)
    child.channel?.send({ type: 'shutdown' })
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
    if (!child?.channel) return Promise.reject(new HeError('OVERLOADED', 'no worker process is free'))
    const channel = child.channel
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
      channel.send({ type: 'job', id, job })
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
          if (child.channel) child.channel.send({ type: 'shutdown' })
          else child.process.kill('SIGTERM')
          // A child that does not stop within 5 s is killed.
          setTimeout(() => child.process.kill('SIGKILL'), 5000).unref()
        }),
    )
    await Promise.all(exits)
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()))
    await unlink(this.#socketPath).catch(() => undefined)
  }
}
