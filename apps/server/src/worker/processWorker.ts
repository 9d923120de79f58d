import { toHeError } from '@sealbox/he-core'
import { type WorkerDownMessage, WorkerDownMessageSchema, type WorkerUpMessage } from '../executor/jobMessages.ts'
import { WorkerSetupSchema } from '../executor/WorkerSetup.ts'
import { JobRunner } from './JobRunner.ts'

/*
 * A worker process, forked by the ProcessExecutor with an IPC channel (`serialization:
 * 'advanced'`): warms up, then runs one job at a time until told to shut down or until
 * the server goes away (the channel closes).
 */

if (!process.send) {
  process.stderr.write('processWorker: start me with child_process.fork (no IPC channel)\n')
  process.exit(2)
}

const setup = WorkerSetupSchema.parse(JSON.parse(process.env.SEALBOX_WORKER_SETUP ?? '{}'))
let runner: JobRunner | undefined
let queue: Promise<unknown> = Promise.resolve()

function send(message: WorkerUpMessage): void {
  process.send?.(message)
}

process.on('message', (raw) => {
  const parsed = WorkerDownMessageSchema.safeParse(raw)
  if (!parsed.success) {
    process.stderr.write(`processWorker: invalid message: ${parsed.error.issues[0]?.message}\n`)
    process.exit(2)
  }
  // One job at a time, in arrival order; shutdown waits for the job before it.
  queue = queue.then(() => handle(parsed.data))
})
// The server is gone: nobody is left to answer.
process.on('disconnect', () => process.exit(0))

async function handle(message: WorkerDownMessage): Promise<void> {
  switch (message.type) {
    case 'job': {
      if (!runner) return
      const reply = await runner.run(message.job)
      send({ type: 'reply', id: message.id, reply })
      return
    }
    case 'shutdown':
      runner?.dispose()
      process.disconnect()
      process.exit(0)
      return
    default: {
      const never: never = message
      return never
    }
  }
}

const workerId = `process-${process.pid}`
JobRunner.create(setup, {
  workerId,
  isolated: true,
  onProgress: (progress) => send({ type: 'progress', workerId, progress }),
}).then(
  ({ runner: warmRunner, warm }) => {
    runner = warmRunner
    send({ type: 'warm', info: warm })
  },
  (error: unknown) => {
    send({ type: 'warmFailed', error: toHeError(error).toJSON() })
    process.disconnect()
    process.exit(1)
  },
)
