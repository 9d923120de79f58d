import { BenchError } from '../BenchError.ts'
import { loadAverage } from '../core/machineInfo.ts'
import type { BenchEngine, EngineSession } from '../engines/BenchEngine.ts'
import type { BenchPlan, HarnessCommandBody, HarnessEvent, HarnessResult } from '../protocol/benchProtocol.ts'
import type { EngineColumn } from './OpTableReport.ts'
import { WorkEstimate } from './WorkEstimate.ts'

/** How long one command may take before the engine is given up (a loaded machine, n=32768, WebKit). */
function commandTimeoutMs(command: HarnessCommandBody, plan: BenchPlan): number {
  switch (command.type) {
    case 'warmup':
      return 4 * plan.policy.engineWarmupMs + 5 * 60_000
    case 'open':
    case 'cell':
      return 10 * 60_000
    case 'close':
    case 'finish':
      return 2 * 60_000
    default: {
      const unreachable: never = command
      throw new BenchError('INTERNAL', `unknown command ${JSON.stringify(unreachable)}`)
    }
  }
}

/**
 * One engine during a run: its session, what it has reported, the time it has been
 * busy and its own ETA. The orchestrator sends it commands; a failure closes it and
 * keeps what it measured so far.
 */
export class EngineRunner {
  readonly engine: BenchEngine
  readonly column: EngineColumn
  readonly #plan: BenchPlan
  readonly #estimate: WorkEstimate
  readonly #events: HarnessEvent[] = []
  #session: EngineSession | undefined
  #busyMs = 0
  #detail = 'waiting'

  constructor(engine: BenchEngine, plan: BenchPlan) {
    this.engine = engine
    this.#plan = plan
    this.#estimate = new WorkEstimate(plan)
    this.column = {
      id: engine.id,
      label: engine.label,
      shortName: engine.shortName,
      color: engine.color,
      status: 'skipped',
    }
  }

  /** True while the engine takes commands. */
  get alive(): boolean {
    return this.#session !== undefined
  }

  /** Detects and starts the engine; returns a line to print when it is skipped or fails. */
  async start(): Promise<string | undefined> {
    const availability = await this.engine.detect()
    if (!availability.available) {
      this.column.reason = availability.reason
      this.column.install = availability.install
      return `[${this.engine.id}] skipped: ${availability.reason}. Install: ${availability.install}`
    }
    this.column.loadAverageBefore = loadAverage()
    try {
      this.#session = await this.engine.start({
        plan: this.#plan,
        onEvent: (event) => {
          this.#events.push(event)
          this.#estimate.record(event)
          if (event.type === 'phase') this.#detail = `n=${event.n} ${event.label}`
        },
      })
      this.column.status = 'ok'
      return undefined
    } catch (error) {
      this.#markFailed(error)
      return `[${this.engine.id}] failed to start: ${this.column.reason}`
    }
  }

  /** Runs one command; on failure the engine is closed and a line to print is returned. */
  async run(command: HarnessCommandBody): Promise<string | undefined> {
    const session = this.#session
    if (!session) return undefined
    const started = performance.now()
    try {
      await session.request(command, commandTimeoutMs(command, this.#plan))
      if (command.type === 'finish') this.#detail = 'done'
      return undefined
    } catch (error) {
      this.#markFailed(error)
      await session.close().catch(() => undefined)
      return `[${this.engine.id}] FAILED: ${this.column.reason}`
    } finally {
      this.#busyMs += performance.now() - started
    }
  }

  /** Collects the result and versions, and stops the engine. */
  async close(): Promise<void> {
    const session = this.#session
    this.#session = undefined
    if (session) {
      if (this.column.status === 'ok') {
        this.column.versions = await session.versions().catch(() => ({}))
        const result = session.result
        if (result) this.column.result = result
        else this.#markFailed(new BenchError('ENGINE_FAILED', 'the harness finished without a result'))
      }
      await session.close().catch(() => undefined)
    }
    if (this.column.status !== 'skipped') {
      this.column.wallMs = this.#busyMs
      this.column.loadAverageAfter = loadAverage()
    }
  }

  /** The progress-board line of this engine. */
  progress(): { label: string; fraction: number; elapsedMs: number; etaMs: number | undefined; detail: string } {
    const etaMs = this.alive ? this.#estimate.remainingMs(this.#busyMs) : 0
    const done = this.column.status === 'ok' && !this.alive
    const fraction = done ? 1 : etaMs === undefined ? 0 : this.#busyMs / (this.#busyMs + etaMs || 1)
    const detail = this.column.status === 'failed' ? `FAILED: ${this.column.reason}` : this.#detail
    return { label: this.engine.id, fraction, elapsedMs: this.#busyMs, etaMs, detail }
  }

  #markFailed(error: unknown): void {
    this.column.status = 'failed'
    this.column.reason = error instanceof Error ? error.message : String(error)
    this.#session = undefined
    const partial = partialResult(this.#events)
    if (partial) this.column.result = partial
  }
}

/** What arrived before a run failed, so a crashed browser still fills the cells it reached. */
function partialResult(events: HarnessEvent[]): HarnessResult | undefined {
  const cells = events.flatMap((e) => (e.type === 'cell' ? [e.cell] : []))
  if (cells.length === 0) return undefined
  return {
    runtime: { timerResolutionUs: Number.NaN },
    envs: events.flatMap((e) => (e.type === 'env' ? [e.env] : [])),
    cells,
    skipped: events.flatMap((e) => (e.type === 'skip' ? [e.row] : [])),
    leakedHandles: 0,
    wallMs: 0,
  }
}
