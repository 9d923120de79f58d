import { decodeBatch, decodeCkks, decrypt, describeCiphertext, withScope } from '@sealbox/he-core'
import { decodeEnvelope, loadSealObject } from '@sealbox/he-core/envelope'
import type { RequestOf } from '../protocol.ts'
import type { ServerLink } from '../ServerLink.ts'
import type { RemoteOutput } from '../serverProtocol.ts'
import type { WorkerSession } from '../WorkerSession.ts'
import { PREVIEW_SLOTS } from './variableHandlers.ts'

/** Loads one output envelope from the server and describes it: facts and (with the secret key) its first values. */
function describeRemote(session: WorkerSession, name: string, bytes: Uint8Array): RemoteOutput {
  const ctx = session.context
  const keySet = session.keySet
  return withScope((scope) => {
    const envelope = decodeEnvelope(bytes, { kind: ['ciphertext', 'plaintext'], fingerprint: ctx.fingerprint })
    const decode = (plaintext: Parameters<typeof decodeCkks>[1]) =>
      (ctx.scheme === 'ckks' ? decodeCkks(ctx, plaintext) : decodeBatch(ctx, plaintext)).slice(0, PREVIEW_SLOTS)
    if (envelope.kind === 'plaintext') {
      const plaintext = scope.track(new ctx.seal.Plaintext())
      loadSealObject(plaintext, ctx, envelope, { kind: 'plaintext' })
      return { name, bytes: bytes.byteLength, preview: decode(plaintext) }
    }
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
    const mine = keySet !== undefined && envelope.keySetId === keySet.id
    const info = describeCiphertext(ctx, ciphertext, mine ? keySet : undefined)
    return {
      name,
      bytes: bytes.byteLength,
      level: info.level,
      size: info.size,
      ...(info.noiseBudget === undefined ? {} : { noiseBudget: info.noiseBudget }),
      ...(info.scaleBits === undefined ? {} : { scaleBits: info.scaleBits }),
      ...(mine ? { preview: decode(decrypt(keySet, ciphertext, scope)) } : {}),
    }
  })
}

/** Runs the pipeline program on the server and decrypts what comes back, here. */
export async function serverEvaluate(session: WorkerSession, link: ServerLink, request: RequestOf<'serverEvaluate'>) {
  const result = await link.evaluate(request)
  const outputs = Object.entries(result.outputs).map(([name, bytes]) => describeRemote(session, name, bytes))
  return { outputs, stepMs: result.steps.map((step) => step.timeMs), work: result.work }
}
