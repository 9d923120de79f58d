import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { configFor } from '../config/loadConfig.ts'
import { InlineWorkerHandle } from './InlineWorkerHandle.ts'
import type { WarmInfo, WorkerReply, WorkerUpMessage } from './jobMessages.ts'
import { ProcessWorkerHandle } from './ProcessWorkerHandle.ts'
import { ThreadWorkerHandle } from './ThreadWorkerHandle.ts'
import type { WorkerExit, WorkerHandle, WorkerRuntime } from './WorkerHandle.ts'
import { type WorkerSetup, workerSetupFrom } from './WorkerSetup.ts'

/*
 * One contract for the three runtimes behind `WorkerHandle`, each a real worker: a Piscina
 * thread, a forked process, the event loop — each warming real SEAL over a small synthetic
 * database. What the WorkerSet relies on: `warm` before any job, a reply under the job's id,
 * an exit after `shutdown`, and (isolated runtimes) an exit when the worker dies under a job.
 */

let dataDir: string
let setup: WorkerSetup

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sealbox-worker-handle-'))
  const config = configFor({
    DATA_DIR: dataDir,
    SYNTHETIC_ROWS: 300,
    SYNTHETIC_DIM: 6,
    SYNTHETIC_SEED: 7,
    SEARCH_BABY_STEPS: 'server',
    SEARCH_BABY_STEP: 2,
    FAULT_INJECTION: true,
  })
  setup = workerSetupFrom(config, { type: 'file', dir: join(dataDir, 'keys') })
})

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

const RUNTIMES: Record<WorkerRuntime, () => WorkerHandle> = {
  thread: () => ThreadWorkerHandle.start({ setup }),
  process: () => ProcessWorkerHandle.fork(setup),
  inline: () => InlineWorkerHandle.start({ setup, closing: () => true }),
}

/** A started worker, its messages as promises the test awaits (events, never sleeps). */
function watch(handle: WorkerHandle) {
  const replies = new Map<number, (reply: WorkerReply) => void>()
  let warmed: (info: WarmInfo) => void = () => undefined
  const warm = new Promise<WarmInfo>((resolve, reject) => {
    warmed = resolve
    handle.onMessage((message: WorkerUpMessage) => {
      if (message.type === 'warm') warmed(message.info)
      if (message.type === 'warmFailed') reject(HeError.fromJSON(message.error))
      if (message.type === 'reply') replies.get(message.id)?.(message.reply)
    })
  })
  const exit = new Promise<WorkerExit>((resolve) => handle.onExit(resolve))
  const reply = (id: number) => new Promise<WorkerReply>((resolve) => replies.set(id, resolve))
  return { warm, exit, reply }
}

describe.each(Object.keys(RUNTIMES) as WorkerRuntime[])('a %s worker', (runtime) => {
  it('warms up, answers each job under its id, and exits on shutdown', { timeout: 120_000 }, async () => {
    const handle = RUNTIMES[runtime]()
    const worker = watch(handle)
    expect(handle.runtime).toBe(runtime)
    const info = await worker.warm
    expect(info.worker.workerId).toBe(handle.id)
    // Bytes that are no key set: the worker's own validation refuses them, in a reply.
    const refused = worker.reply(41)
    expect(handle.post({ type: 'job', id: 41, job: { type: 'inspectKeys', bytes: new Uint8Array([1, 2, 3]) } })).toBe(
      true,
    )
    const survived = worker.reply(42)
    handle.post({ type: 'job', id: 42, job: { type: 'fault', fault: 'slow', ms: 1 } })
    expect((await refused).result).toMatchObject({ type: 'failed', error: { code: 'INVALID_ENVELOPE' } })
    expect((await survived).result).toEqual({ type: 'faultSurvived' })
    expect(handle.post({ type: 'shutdown' })).toBe(true)
    await worker.exit
    expect(handle.post({ type: 'job', id: 43, job: { type: 'fault', fault: 'slow', ms: 1 } })).toBe(false)
  })

  if (runtime !== 'inline') {
    it('exits when it dies under a job, and terminate stops a hung one', { timeout: 120_000 }, async () => {
      const crashing = RUNTIMES[runtime]()
      const crashed = watch(crashing)
      const hanging = RUNTIMES[runtime]()
      const hung = watch(hanging)
      await Promise.all([crashed.warm, hung.warm])
      crashing.post({ type: 'job', id: 1, job: { type: 'fault', fault: 'crash' } })
      // runFault's crash is process.exit(70): the thread's or the process's own exit code.
      expect(await crashed.exit).toEqual({ cause: 'exit 70' })
      hanging.post({ type: 'job', id: 1, job: { type: 'fault', fault: 'hang' } })
      hanging.terminate()
      await hung.exit
      expect(hanging.post({ type: 'shutdown' })).toBe(false)
    })
  }
})
