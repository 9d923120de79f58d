import '../zodWithoutEval.ts'
import { HeError, toHeError } from '@sealbox/he-core'
import { heErrorBody } from '@sealbox/he-core/client'
import { handleRequest } from './handleRequest.ts'
import { type WorkerReply, workerRequest } from './protocol.ts'
import { ServerLink } from './ServerLink.ts'
import { WorkerSession } from './WorkerSession.ts'

/*
 * The SEAL worker: the only place in the sandbox where node-seal runs. It owns every
 * SEAL object (through WorkerSession) and answers one request at a time, so the
 * page's event loop never waits on WebAssembly.
 */

/** The part of DedicatedWorkerGlobalScope used here (the DOM lib does not declare it). */
interface WorkerScope {
  postMessage(message: unknown, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<unknown>) => void) | null
}

const scope = self as unknown as WorkerScope
const session = new WorkerSession()
const link = new ServerLink()
let queue: Promise<void> = Promise.resolve()

function post(reply: WorkerReply, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer)
}

scope.onmessage = (event: MessageEvent<unknown>) => {
  const parsed = workerRequest.safeParse(event.data)
  if (!parsed.success) {
    const raw = event.data as { id?: unknown }
    const error = new HeError('INVALID_INPUT', `worker: malformed request (${parsed.error.issues[0]?.message})`)
    post({ type: 'failed', id: typeof raw?.id === 'number' ? raw.id : 0, error: heErrorBody(error) })
    return
  }
  const request = parsed.data
  // Requests run strictly in order: SEAL objects are shared state.
  queue = queue.then(async () => {
    try {
      await handleRequest(session, link, request, post)
    } catch (thrown) {
      const error = toHeError(thrown, undefined, 'INTERNAL')
      post({ type: 'failed', id: request.id, error: heErrorBody(error) })
    }
  })
}
