import { loadSeal, wasmHeapBytes } from '@sealbox/he-core'
import type { WorkerReply, WorkerRequest } from './protocol.ts'
import type { WorkerSession } from './WorkerSession.ts'

/** Posts a reply to the page, transferring the listed buffers. */
export type PostReply = (reply: WorkerReply, transfer?: Transferable[]) => void

function heap(): { heapBytes?: number } {
  const bytes = wasmHeapBytes()
  return bytes === undefined ? {} : { heapBytes: bytes }
}

/** Runs one request against the session and posts its final reply. Throws coded errors. */
export async function handleRequest(session: WorkerSession, request: WorkerRequest, post: PostReply): Promise<void> {
  switch (request.type) {
    case 'hello': {
      await loadSeal()
      post({ type: 'hello', id: request.id, ...heap() })
      return
    }
    case 'setParams': {
      const started = performance.now()
      const context = await session.applyParams(request.params)
      post({
        type: 'paramsReady',
        id: request.id,
        fingerprint: context.fingerprint,
        ...(context.plainModulus !== undefined ? { plainModulus: context.plainModulus } : {}),
        contextMs: performance.now() - started,
        ...heap(),
      })
      return
    }
    default: {
      const never: never = request
      throw new Error(`unhandled request ${JSON.stringify(never)}`)
    }
  }
}
