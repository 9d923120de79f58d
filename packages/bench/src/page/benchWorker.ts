/**
 * The harness inside a browser: loads node-seal (Vite rewrites its `.wasm` URL when
 * `locateFile` is undefined, see NODE-SEAL.md §0.3) and runs the plan it is sent.
 */
import SEAL from 'node-seal/throws'
import { runPlan } from '../harness/runPlan.ts'
import type { HarnessEvent } from '../protocol/benchProtocol.ts'
import type { WorkerStart } from './pageProtocol.ts'

const scope = globalThis as unknown as {
  postMessage(message: HarnessEvent): void
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerStart>) => void): void
  crossOriginIsolated?: boolean
}

scope.addEventListener('message', (event) => {
  const { plan, runtime } = event.data
  const go = async () => {
    const seal = await SEAL({ locateFile: undefined } as Parameters<typeof SEAL>[0])
    await runPlan({
      seal,
      plan,
      now: () => performance.now(),
      emit: (harnessEvent) => scope.postMessage(harnessEvent),
      // The worker's own view: isolation applies to its timers too.
      runtime: { ...runtime, crossOriginIsolated: scope.crossOriginIsolated === true && runtime.crossOriginIsolated },
    })
  }
  go().catch((error: unknown) =>
    scope.postMessage({
      type: 'error',
      message: error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error),
      ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
    }),
  )
})
