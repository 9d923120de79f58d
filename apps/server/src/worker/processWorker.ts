import { connect } from 'node:net'
import { toHeError } from '@sealbox/he-core'
import { FramedSocket } from '../executor/FramedSocket.ts'
import { type ProcessDownMessage, ProcessDownMessageSchema, type ProcessUpMessage } from '../executor/jobMessages.ts'
import { WorkerSetupSchema } from '../executor/WorkerSetup.ts'
import { JobRunner, plainError } from './JobRunner.ts'

/*
 * A worker process: connects back to the server's Unix socket, introduces itself
 * with the nonce it was started with, warms up, then runs one job at a time until
 * told to shut down or until the server goes away.
 */

const socketPath = process.env.SEALBOX_WORKER_SOCKET
const nonce = process.env.SEALBOX_WORKER_NONCE
if (!socketPath || !nonce) {
  process.stderr.write('processWorker: started without SEALBOX_WORKER_SOCKET / SEALBOX_WORKER_NONCE\n')
  process.exit(2)
}

const setup = WorkerSetupSchema.parse(JSON.parse(process.env.SEALBOX_WORKER_SETUP ?? '{}'))
let runner: JobRunner | undefined
let queue: Promise<unknown> = Promise.resolve()

const socket = connect(socketPath)
const channel = new FramedSocket<ProcessDownMessage, ProcessUpMessage>(socket, ProcessDownMessageSchema, (message) => {
  // One job at a time, in arrival order; shutdown waits for the job before it.
  queue = queue.then(() => handle(message))
})
// The server is gone: nobody is left to answer.
socket.on('close', () => process.exit(0))
socket.on('error', () => process.exit(0))

async function handle(message: ProcessDownMessage): Promise<void> {
  switch (message.type) {
    case 'job': {
      if (!runner) return
      const reply = await runner.run(message.job)
      channel.send({ type: 'reply', id: message.id, reply })
      return
    }
    case 'shutdown':
      runner?.dispose()
      socket.end(() => process.exit(0))
      return
    default: {
      const never: never = message
      return never
    }
  }
}

socket.once('connect', () => {
  channel.send({ type: 'hello', nonce, pid: process.pid })
  JobRunner.create(setup, { workerId: `process-${process.pid}`, isolated: true }).then(
    ({ runner: warmRunner, warm }) => {
      runner = warmRunner
      channel.send({ type: 'warm', info: warm })
    },
    (error: unknown) => {
      channel.send({ type: 'warmFailed', error: plainError(toHeError(error)) })
      socket.end(() => process.exit(1))
    },
  )
})
