import { connect } from 'node:net'
import { deserialize, serialize } from 'node:v8'

/*
 * The child side of measureIpc.ts: answers every message with a reply of
 * IPC_REPLY_BYTES bytes, over the fork IPC channel or a framed Unix socket.
 */

const reply = new Uint8Array(Number(process.env.IPC_REPLY_BYTES ?? 0))
const socketPath = process.env.IPC_SOCKET

if (!socketPath) {
  process.on('message', (message: { id: number }) => process.send?.({ id: message.id, bytes: reply }))
} else {
  const socket = connect(socketPath)
  let buffered = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0)
      if (buffered.length < 4 + length) break
      const message = deserialize(buffered.subarray(4, 4 + length)) as { id: number }
      buffered = buffered.subarray(4 + length)
      const body = serialize({ id: message.id, bytes: reply })
      const header = Buffer.alloc(4)
      header.writeUInt32BE(body.length, 0)
      socket.write(Buffer.concat([header, body]))
    }
  })
  process.on('disconnect', () => process.exit(0))
}
