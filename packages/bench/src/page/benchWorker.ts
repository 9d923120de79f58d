/**
 * The harness inside a browser: loads node-seal (Vite rewrites its `.wasm` URL when
 * `locateFile` is undefined, see packages/he-core/NODE-SEAL-FACTS.md §2), then runs the commands it is sent,
 * one after the other.
 */
import SEAL from 'node-seal/throws'
import { HarnessSession } from '../harness/HarnessSession.ts'
import type { HarnessEvent } from '../protocol/benchProtocol.ts'
import type { WorkerMessage } from './pageProtocol.ts'

const scope = globalThis as unknown as {
  postMessage(message: HarnessEvent): void
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerMessage>) => void): void
  crossOriginIsolated?: boolean
}

function reportError(error: unknown): undefined {
  scope.postMessage({
    type: 'error',
    message: error instanceof Error ? error.message : String((error as { message?: unknown })?.message ?? error),
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  })
  return undefined
}

let queue: Promise<HarnessSession | undefined> | undefined

scope.addEventListener('message', (event) => {
  const message = event.data
  if (message.type === 'start') {
    queue = (async () => {
      const seal = await SEAL({ locateFile: undefined } as Parameters<typeof SEAL>[0])
      return new HarnessSession({
        seal,
        plan: message.plan,
        now: () => performance.now(),
        emit: (harnessEvent) => scope.postMessage(harnessEvent),
        // The worker's own view: isolation applies to its timers too.
        runtime: {
          ...message.runtime,
          crossOriginIsolated: scope.crossOriginIsolated === true && message.runtime.crossOriginIsolated === true,
        },
      })
    })().catch(reportError)
    return
  }
  // Commands run strictly one after the other, in the order they arrive.
  queue = (queue ?? Promise.resolve(undefined)).then(async (session) => {
    if (!session) return session
    try {
      await session.handle(message.command)
      return session
    } catch (error) {
      return reportError(error)
    }
  })
})
