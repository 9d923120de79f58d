/**
 * The Node column's child process: receives a plan, then harness commands, over IPC and
 * runs them on the shared harness; every harness event goes back over IPC. A child (not
 * the orchestrator itself) gives Node the same fresh start as a browser tab and its own
 * 4 GiB WASM heap.
 */
import process from 'node:process'
import SEAL from 'node-seal/throws'
import { BenchError } from '../../BenchError.ts'
import { HarnessSession } from '../../harness/HarnessSession.ts'
import { BenchPlanSchema, HarnessCommandSchema, type HarnessEvent } from '../../protocol/benchProtocol.ts'

function send(event: HarnessEvent): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) throw new BenchError('INTERNAL', 'nodeHarnessMain must run as a child process with IPC')
    process.send(event, undefined, undefined, () => resolve())
  })
}

async function reportError(error: unknown): Promise<void> {
  await send({
    type: 'error',
    message: error instanceof Error ? error.message : String(error),
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  })
}

let queue: Promise<HarnessSession | undefined> | undefined

process.on('message', (message: { plan?: unknown; command?: unknown }) => {
  if (!queue) {
    queue = (async () => {
      const plan = BenchPlanSchema.parse(message.plan)
      const seal = await SEAL()
      return new HarnessSession({
        seal,
        plan,
        now: () => performance.now(),
        emit: send,
        runtime: { userAgent: `Node ${process.version} (V8 ${process.versions.v8})` },
      })
    })().catch(async (error: unknown) => {
      await reportError(error)
      return undefined
    })
    return
  }
  // Commands run strictly one after the other, in the order they arrive.
  queue = queue.then(async (session) => {
    if (!session) return session
    try {
      await session.handle(HarnessCommandSchema.parse(message.command))
      return session
    } catch (error) {
      await reportError(error)
      return undefined
    }
  })
})

process.on('disconnect', () => process.exit(0))
