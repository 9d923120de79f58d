/**
 * The Node column's child process: receives a plan over IPC, runs the shared harness
 * on node-seal, sends every harness event back. A child (not the orchestrator itself)
 * gives Node the same fresh start as a browser tab and its own 4 GiB WASM heap.
 */
import process from 'node:process'
import SEAL from 'node-seal/throws'
import { runPlan } from '../../harness/runPlan.ts'
import { BenchPlanSchema, type HarnessEvent } from '../../protocol/benchProtocol.ts'

function send(event: HarnessEvent): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) throw new Error('nodeHarnessMain must run as a child process with IPC')
    process.send(event, undefined, undefined, () => resolve())
  })
}

process.once('message', async (message: unknown) => {
  try {
    const plan = BenchPlanSchema.parse((message as { plan?: unknown }).plan)
    const seal = await SEAL()
    await runPlan({
      seal,
      plan,
      now: () => performance.now(),
      emit: send,
      runtime: { userAgent: `Node ${process.version} (V8 ${process.versions.v8})` },
      // The WASM heap is an ArrayBuffer outside V8's heap.
      heapBytes: () => process.memoryUsage().arrayBuffers,
    })
  } catch (error) {
    await send({
      type: 'error',
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
    })
    process.exitCode = 1
  } finally {
    process.disconnect?.()
  }
})
