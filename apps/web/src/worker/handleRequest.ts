import { loadSeal, wasmHeapBytes } from '@sealbox/he-core'
import { compareExact } from './handlers/compareExact.ts'
import { inspectObject } from './handlers/inspectObject.ts'
import { exportKey, generateKeys, loadKey } from './handlers/keyHandlers.ts'
import { runStep } from './handlers/pipelineHandlers.ts'
import { serverEvaluate } from './handlers/serverHandlers.ts'
import { convertVariable, createVariable, decodeValue, loadVariable } from './handlers/variableHandlers.ts'
import type { WorkerReply, WorkerRequest } from './protocol.ts'
import type { ServerLink } from './ServerLink.ts'
import type { WorkerSession } from './WorkerSession.ts'

/** Posts a reply to the page, transferring the listed buffers. */
export type PostReply = (reply: WorkerReply, transfer?: Transferable[]) => void

function heap(): { heapBytes?: number } {
  const bytes = wasmHeapBytes()
  return bytes === undefined ? {} : { heapBytes: bytes }
}

/** Runs one request against the session and posts its final reply. Throws coded errors. */
export async function handleRequest(
  session: WorkerSession,
  link: ServerLink,
  request: WorkerRequest,
  post: PostReply,
): Promise<void> {
  const { id } = request
  const progress = (label: string, done: number, total: number) => post({ type: 'progress', id, label, done, total })
  switch (request.type) {
    case 'hello': {
      await loadSeal()
      post({ type: 'hello', id, ...heap() })
      return
    }
    case 'setParams': {
      const started = performance.now()
      const reused = session.holdsParams(request.params)
      const context = await session.applyParams(request.params)
      post({
        type: 'paramsReady',
        id,
        fingerprint: context.fingerprint,
        ...(context.plainModulus !== undefined ? { plainModulus: context.plainModulus } : {}),
        contextMs: performance.now() - started,
        reused,
        ...heap(),
      })
      return
    }
    case 'generateKeys':
    case 'loadKey': {
      const outcome =
        request.type === 'generateKeys' ? generateKeys(session, request, progress) : loadKey(session, request)
      const transfer = outcome.keys.flatMap((key) => (key.envelope ? [key.envelope.buffer] : []))
      post({ type: 'keysReady', id, ...outcome, ...heap() }, transfer)
      return
    }
    case 'exportKey': {
      const envelope = exportKey(session, request.kind, request.seeded)
      post({ type: 'keyExported', id, envelope }, [envelope.buffer])
      return
    }
    case 'dropKeys': {
      session.dropKeys(request.kinds)
      post({ type: 'done', id, ...heap() })
      return
    }
    case 'createVariable':
    case 'convertVariable':
    case 'loadVariable': {
      const variable =
        request.type === 'createVariable'
          ? createVariable(session, request)
          : request.type === 'convertVariable'
            ? convertVariable(session, request)
            : loadVariable(session, request)
      post({ type: 'variableReady', id, variable, ...heap() }, [variable.envelope.buffer])
      return
    }
    case 'decodeVariable': {
      const values = decodeValue(session, session.requireValue(request.name))
      post({ type: 'decoded', id, name: request.name, values })
      return
    }
    case 'dropVariable': {
      session.dropValue(request.name)
      post({ type: 'done', id, ...heap() })
      return
    }
    case 'runStep': {
      const outcome = runStep(session, request)
      post({ type: 'stepDone', id, ...outcome, ...heap() }, [outcome.variable.envelope.buffer])
      return
    }
    case 'inspect': {
      post({ type: 'inspected', id, inspection: inspectObject(session, request) })
      return
    }
    case 'compareExact': {
      post({ type: 'compared', id, results: compareExact(session, request) })
      return
    }
    case 'serverConnect': {
      post({ type: 'serverConnected', id, ...(await link.connect(request)) })
      return
    }
    case 'serverUploadKeys': {
      post({ type: 'serverKeysUploaded', id, ...(await link.uploadKeys(request)) })
      return
    }
    case 'serverEvaluate': {
      post({ type: 'serverEvaluated', id, ...(await serverEvaluate(session, link, request)), ...heap() })
      return
    }
    case 'searchRow': {
      post({ type: 'searchRow', id, vector: await link.row(request.row) })
      return
    }
    case 'serverSearch': {
      post({ type: 'serverSearched', id, ...(await link.search(request)) })
      return
    }
    default: {
      const never: never = request
      throw new Error(`unhandled request ${JSON.stringify(never)}`)
    }
  }
}
