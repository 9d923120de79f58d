import { parentPort, threadId, workerData } from 'node:worker_threads'
import { toHeError } from '@sealbox/he-core'
import { type PoolEvent, WorkerJobSchema, type WorkerReply } from '../executor/jobMessages.ts'
import { retireSlotOf } from '../executor/retireFlags.ts'
import { WorkerSetupSchema } from '../executor/WorkerSetup.ts'
import { JobRunner } from './JobRunner.ts'

/*
 * The Piscina worker: one node-seal instance per thread, warmed before the pool
 * hands it work. The default export is a promise of the task handler, so Piscina
 * waits for warm-up (SEAL loaded, database processed) before marking it ready.
 */

const data = workerData as {
  setup: unknown
  retireFlags: Int32Array
  wasmModule?: WebAssembly.Module
  diagonals?: WebAssembly.Memory
}
const retireSlot = retireSlotOf(threadId)

function post(event: PoolEvent): void {
  parentPort?.postMessage(event)
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
    Atomics.store(data.retireFlags, retireSlot, 0)
    post({ type: 'warm', info: warm })
    return async (task: unknown) => {
      const reply = await runner.run(WorkerJobSchema.parse(task))
      // Before the reply leaves: the main thread must not hand this thread another job.
      if (reply.recycle) Atomics.store(data.retireFlags, retireSlot, 1)
      return reply
    }
  } catch (error) {
    post({ type: 'warmFailed', error: toHeError(error).toJSON() })
    throw error
  }
}

export default warm()
