import { parentPort, threadId, workerData } from 'node:worker_threads'
import { toHeError } from '@sealbox/he-core'
import { WorkerJobSchema, type WorkerReply, type WorkerUpMessage } from '../executor/jobMessages.ts'
import type { ThreadWorkerData } from '../executor/ThreadWorkerHandle.ts'
import { WorkerSetupSchema } from '../executor/WorkerSetup.ts'
import { JobRunner } from './JobRunner.ts'

/*
 * A worker thread (`ThreadWorkerHandle`, a single-thread Piscina): one node-seal instance,
 * warmed before the pool hands it work. The default export is a promise of the task handler,
 * so Piscina waits for warm-up (SEAL loaded, database processed) before it runs a job; a job's
 * reply is the task's result, the rest (`warm`, `progress`, `warmFailed`) goes on the port.
 */

const data = workerData as ThreadWorkerData

function post(message: Exclude<WorkerUpMessage, { type: 'reply' }>): void {
  parentPort?.postMessage(message)
}

async function warm(): Promise<(task: unknown) => Promise<WorkerReply>> {
  try {
    const setup = WorkerSetupSchema.parse(data.setup)
    const workerId = `thread-${threadId}`
    const { runner, warm } = await JobRunner.create(setup, {
      workerId,
      isolated: true,
      onProgress: (progress) => post({ type: 'progress', workerId, progress }),
      ...(data.wasmModule ? { wasmModule: data.wasmModule } : {}),
      ...(data.diagonals ? { diagonals: data.diagonals } : {}),
    })
    post({ type: 'warm', info: warm })
    return (task: unknown) => runner.run(WorkerJobSchema.parse(task))
  } catch (error) {
    post({ type: 'warmFailed', error: toHeError(error).toJSON() })
    throw error
  }
}

export default warm()
