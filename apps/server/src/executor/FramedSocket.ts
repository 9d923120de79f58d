import type { Socket } from 'node:net'
import { deserialize, serialize } from 'node:v8'
import type { z } from 'zod'

/** Frames above this are refused (a corrupt length must not make us buffer gigabytes). */
const MAX_FRAME_BYTES = 2 ** 31 - 1

/**
 * Typed messages over a stream socket: each frame is a 4-byte big-endian length and
 * a v8-serialized value (structured-clone semantics: Uint8Arrays stay Uint8Arrays),
 * validated against a zod schema on arrival. Invalid frames close the socket.
 */
export class FramedSocket<In, Out> {
  readonly socket: Socket
  readonly #schema: z.ZodType<In>
  #buffered: Buffer[] = []
  #bufferedBytes = 0

  constructor(socket: Socket, schema: z.ZodType<In>, onMessage: (message: In) => void) {
    this.socket = socket
    this.#schema = schema
    socket.on('data', (chunk: Buffer) => {
      this.#buffered.push(chunk)
      this.#bufferedBytes += chunk.length
      for (;;) {
        const message = this.#nextFrame()
        if (message === undefined) break
        const parsed = this.#schema.safeParse(message)
        if (!parsed.success) {
          socket.destroy(new Error(`invalid message on the worker socket: ${parsed.error.issues[0]?.message}`))
          return
        }
        onMessage(parsed.data)
      }
    })
  }

  #nextFrame(): unknown {
    if (this.#bufferedBytes < 4) return undefined
    if ((this.#buffered[0] as Buffer).length < 4) this.#buffered = [Buffer.concat(this.#buffered)]
    const length = (this.#buffered[0] as Buffer).readUInt32BE(0)
    if (length > MAX_FRAME_BYTES) {
      this.socket.destroy(new Error(`frame of ${length} bytes is too large`))
      return undefined
    }
    // Join the chunks only once the whole frame is here (large frames come in many).
    if (this.#bufferedBytes < 4 + length) return undefined
    const buffer = this.#buffered.length === 1 ? (this.#buffered[0] as Buffer) : Buffer.concat(this.#buffered)
    const frame = buffer.subarray(4, 4 + length)
    const rest = buffer.subarray(4 + length)
    this.#buffered = rest.length > 0 ? [rest] : []
    this.#bufferedBytes = rest.length
    return deserialize(frame)
  }

  send(message: Out): void {
    const body = serialize(message)
    const header = Buffer.alloc(4)
    header.writeUInt32BE(body.length, 0)
    this.socket.write(header)
    this.socket.write(body)
  }
}
