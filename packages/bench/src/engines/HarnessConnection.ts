import { PendingReplies } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import {
  type HarnessCommand,
  type HarnessCommandBody,
  type HarnessEvent,
  HarnessEventSchema,
  type HarnessResult,
} from '../protocol/benchProtocol.ts'

/**
 * The orchestrator's side of one running harness, whatever carries the messages (IPC,
 * HTTP long-poll, a pipe): numbers the commands, validates every event, resolves a
 * request when its `ack` arrives, and fails everything pending when the engine dies.
 */
export class HarnessConnection {
  readonly engine: string
  readonly #onEvent: (event: HarnessEvent) => void
  readonly #transport: (command: HarnessCommand) => void
  /** Commands by `seq` (from 0), each resolved by its `ack`. */
  readonly #acks = new PendingReplies<void>({ firstId: 0 })
  #failure: unknown
  #result: HarnessResult | undefined

  constructor(engine: string, onEvent: (event: HarnessEvent) => void, transport: (command: HarnessCommand) => void) {
    this.engine = engine
    this.#onEvent = onEvent
    this.#transport = transport
  }

  /** The harness's result, once `finish` was acknowledged. */
  get result(): HarnessResult | undefined {
    return this.#result
  }

  /** Sends a command; resolves when the harness acknowledges it (after its events). */
  request(command: HarnessCommandBody, timeoutMs: number): Promise<void> {
    const label = command.type === 'cell' ? `cell ${command.op}` : command.type
    return this.#acks.request(
      (seq) => {
        try {
          this.#transport({ ...command, seq } as HarnessCommand)
        } catch (error) {
          this.fail(new BenchError('ENGINE_FAILED', `${this.engine}: could not send a command`, { cause: error }))
        }
      },
      {
        timeoutMs,
        // An engine that stops answering is given up on: every command pending on it fails.
        onTimeout: () =>
          this.fail(
            new BenchError(
              'TIMEOUT',
              `${this.engine}: no answer to "${label}" after ${Math.round(timeoutMs / 1000)} s`,
            ),
          ),
      },
    )
  }

  /** Parses one raw event from the engine; a malformed one fails the engine. */
  accept(raw: unknown): void {
    if (this.#failure !== undefined) return
    const parsed = HarnessEventSchema.safeParse(raw)
    if (!parsed.success) {
      this.fail(new BenchError('ENGINE_FAILED', `${this.engine} sent a malformed event: ${parsed.error.message}`))
      return
    }
    const event = parsed.data
    if (event.type === 'ack') {
      this.#acks.resolve(event.seq, undefined)
      return
    }
    if (event.type === 'done') this.#result = event.result
    if (event.type === 'error') {
      this.fail(
        new BenchError('ENGINE_FAILED', `${this.engine}: ${event.message}`, { details: { stack: event.stack } }),
      )
      return
    }
    this.#onEvent(event)
  }

  /** The engine is gone (crash, exit, timeout): every pending and later request fails with `error`. */
  fail(error: unknown): void {
    if (this.#failure !== undefined) return
    this.#failure = error
    this.#acks.fail(error)
  }
}
