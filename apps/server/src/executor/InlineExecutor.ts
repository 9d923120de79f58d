import { JobRunner } from '../worker/JobRunner.ts'
import type { Executor, ExecutorEvents, ExecutorStatus } from './Executor.ts'
import type { WarmInfo, WorkerJob, WorkerReply } from './jobMessages.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/**
 * Runs HE work on the main event loop. Kept only so the cost can be measured: while
 * a job computes, no other request (health checks included) is answered, and a job
 * cannot be stopped at its deadline. Its SEAL instance cannot be replaced either:
 * when it needs replacing, `ready()` turns false so an orchestrator restarts the server.
 */
export class InlineExecutor implements Executor {
  readonly mode = 'inline' as const
  readonly #setup: WorkerSetup
  readonly #events: ExecutorEvents
  #runner: JobRunner | undefined
  #running = 0
  #worn: string | undefined
  #closing = false
  #idle: Array<() => void> = []

  constructor(setup: WorkerSetup, events: ExecutorEvents = {}) {
    this.#setup = setup
    this.#events = events
  }

  async start(): Promise<WarmInfo> {
    const { runner, warm } = await JobRunner.create(this.#setup, { workerId: 'inline', isolated: false })
    this.#runner = runner
    this.#events.onWarm?.(warm)
    this.#events.onCapacity?.()
    return warm
  }

  ready(): boolean {
    return this.#runner !== undefined && this.#worn === undefined && !this.#closing
  }

  freeSlots(): number {
    return this.#runner && !this.#closing ? 1 - this.#running : 0
  }

  async run(job: WorkerJob, _deadline: AbortSignal): Promise<WorkerReply> {
    const runner = this.#runner
    if (!runner) throw new Error('inline executor is not started')
    this.#running++
    try {
      const reply = await runner.run(job)
      if (reply.recycle) this.#worn = reply.recycle
      return reply
    } finally {
      this.#running--
      if (this.#running === 0) for (const wake of this.#idle.splice(0)) wake()
      this.#events.onCapacity?.()
    }
  }

  status(): ExecutorStatus {
    return { mode: 'inline', size: 1, warm: this.ready() ? 1 : 0, running: this.#running, replacements: 0 }
  }

  async close(): Promise<void> {
    this.#closing = true
    if (this.#running > 0) await new Promise<void>((resolve) => this.#idle.push(resolve))
    this.#runner?.dispose()
  }
}
