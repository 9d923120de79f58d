import { type ChildProcess, fork } from 'node:child_process'
import { BenchError } from '../BenchError.ts'

/** Parent → child, over the IPC channel. */
export type ChildCommand = { type: 'start'; job: unknown } | { type: 'stop' }

/** Child → parent, over the IPC channel. */
export type ChildReport<T> = { type: 'ready' } | { type: 'result'; result: T } | { type: 'error'; message: string }

/**
 * A TypeScript entry (`loadGenerator.ts`, `healthProber.ts`) run in its own Node
 * process, so its work never shares an event loop with the server or the
 * orchestrator. The job goes over IPC; the child answers `ready`, then one
 * `result` (or `error`). The process is killed if it overstays `limitMs`.
 */
export class ChildTask<Result> {
  readonly name: string
  /** Settles when the child has read its job and started. */
  readonly ready: Promise<void>
  /** The child's result; rejects with a BenchError if it fails, exits early or overstays. */
  readonly result: Promise<Result>
  readonly #child: ChildProcess

  private constructor(name: string, child: ChildProcess, limitMs: number) {
    this.name = name
    this.#child = child
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000)
    })
    let markReady: () => void = () => undefined
    this.ready = new Promise((resolve) => {
      markReady = resolve
    })
    this.result = new Promise<Result>((resolve, reject) => {
      let settled = false
      const fail = (message: string) => {
        if (settled) return
        settled = true
        reject(new BenchError('ENGINE_FAILED', `${name}: ${message}${stderr ? `\n${stderr.trim()}` : ''}`))
      }
      const timer = setTimeout(() => {
        fail(`still running after ${Math.round(limitMs / 1000)} s; killed`)
        child.kill('SIGKILL')
      }, limitMs)
      child.on('message', (message: ChildReport<Result>) => {
        if (message.type === 'ready') markReady()
        else if (message.type === 'error') fail(message.message)
        else if (message.type === 'result' && !settled) {
          settled = true
          resolve(message.result)
        }
      })
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        markReady()
        fail(`exited (${signal ?? code}) before reporting a result`)
      })
      child.once('error', (error) => fail(error.message))
    })
    // The ready promise never rejects; a failure shows up on `result`.
    this.result.catch(() => markReady())
  }

  /** Starts `script` (a file URL) with `job`. */
  static start<Result>(name: string, script: URL, job: unknown, limitMs: number): ChildTask<Result> {
    const child = fork(script, [], {
      execArgv: ['--conditions=@sealbox/source'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    })
    const task = new ChildTask<Result>(name, child, limitMs)
    task.#send({ type: 'start', job })
    return task
  }

  /** Asks a long-running child (the prober) to finish and report. */
  stop(): void {
    this.#send({ type: 'stop' })
  }

  /** Kills the child (after a failure elsewhere). */
  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL')
  }

  #send(command: ChildCommand): void {
    if (this.#child.connected) this.#child.send(command)
  }
}

/**
 * The child side: waits for the job, calls `run` with a stop signal, and reports
 * the result (or the error) to the parent before exiting.
 */
export function serveChildTask<Result>(run: (job: unknown, stopped: AbortSignal) => Promise<Result>): void {
  const stop = new AbortController()
  const send = (report: ChildReport<Result>) =>
    new Promise<void>((resolve) => {
      if (!process.send) resolve()
      else process.send(report, undefined, undefined, () => resolve())
    })
  process.on('message', (command: ChildCommand) => {
    if (command.type === 'stop') {
      stop.abort()
      return
    }
    void (async () => {
      try {
        const result = await run(command.job, stop.signal)
        await send({ type: 'result', result })
      } catch (error) {
        await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
      }
      process.disconnect?.()
      process.exit(0)
    })()
  })
}

/** Tells the parent the child has started (call once the job is read). */
export function reportChildReady(): void {
  process.send?.({ type: 'ready' } satisfies ChildReport<never>)
}
