import { Transform, type TransformCallback } from 'node:stream'
import type { BodyReservation } from './ReceivingBudget.ts'

/**
 * A request body on its way to Fastify's parser, counted against its `BodyReservation`:
 * every chunk is counted as arrived, and a body sent without Content-Length (chunked)
 * reserves each chunk before passing it on, so a refusal (`grow` throwing) ends the body
 * with that coded error before the chunk is buffered. `receivedEncodedLength` is what
 * Fastify compares with its body limit and the Content-Length.
 */
export class ReceivedBodyStream extends Transform {
  receivedEncodedLength = 0
  readonly #reservation: BodyReservation
  readonly #streamed: boolean

  /** `streamed`: the body's length was not declared, so its chunks are reserved as they come. */
  constructor(reservation: BodyReservation, streamed: boolean) {
    super()
    this.#reservation = reservation
    this.#streamed = streamed
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      if (this.#streamed) this.#reservation.grow(chunk.length)
    } catch (error) {
      callback(error as Error)
      return
    }
    this.#reservation.arrived(chunk.length)
    this.receivedEncodedLength += chunk.length
    callback(null, chunk)
  }
}
