import { BenchError } from '../BenchError.ts'
import { type HarnessEvent, HarnessEventSchema, type HarnessResult } from '../protocol/benchProtocol.ts'

/**
 * Validates raw events from an engine, forwards them, and settles with the `done`
 * result (or the engine's `error`). Engines feed it from IPC, HTTP or stdout lines.
 */
export class HarnessEventCollector {
  readonly engine: string
  readonly #onEvent: (event: HarnessEvent) => void
  readonly done: Promise<HarnessResult>
  #resolve!: (result: HarnessResult) => void
  #reject!: (error: unknown) => void
  #settled = false

  constructor(engine: string, onEvent: (event: HarnessEvent) => void) {
    this.engine = engine
    this.#onEvent = onEvent
    this.done = new Promise<HarnessResult>((resolve, reject) => {
      this.#resolve = resolve
      this.#reject = reject
    })
    // Callers await `done`; this keeps an early failure from being an unhandled rejection.
    this.done.catch(() => {})
  }

  /** Parses one raw event; a malformed one fails the run with the validation message. */
  accept(raw: unknown): void {
    if (this.#settled) return
    const parsed = HarnessEventSchema.safeParse(raw)
    if (!parsed.success) {
      this.fail(new BenchError('ENGINE_FAILED', `${this.engine} sent a malformed event: ${parsed.error.message}`))
      return
    }
    const event = parsed.data
    this.#onEvent(event)
    if (event.type === 'done') {
      this.#settled = true
      this.#resolve(event.result)
    } else if (event.type === 'error') {
      this.fail(
        new BenchError('ENGINE_FAILED', `${this.engine}: ${event.message}`, { details: { stack: event.stack } }),
      )
    }
  }

  /** Ends the run with an error (crash, timeout) unless it already finished. */
  fail(error: unknown): void {
    if (this.#settled) return
    this.#settled = true
    this.#reject(error)
  }
}
