import {
  decodeBatch,
  decodeCkks,
  decrypt,
  describeCiphertext,
  encodeBatch,
  encodeCkks,
  encrypt,
  HeError,
  SealScope,
  withScope,
} from '@sealbox/he-core'
import { decodeEnvelope, encodeEnvelope, loadSealObject } from '@sealbox/he-core/envelope'
import type { Ciphertext, Plaintext } from 'node-seal/throws'
import type { RequestOf, VariableReport } from '../protocol.ts'
import type { SessionValue, WorkerSession } from '../WorkerSession.ts'

/** Slots shown next to a variable; the full vector is decoded on request. */
export const PREVIEW_SLOTS = 16

/** Same rule as he-core program value names: names become identifiers in generated code. */
const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

/** Throws a plain-language error unless `name` can name a workspace value. */
export function checkName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new HeError(
      'INVALID_INPUT',
      `'${name}' is not a valid name: start with a letter, then letters, digits or _ (at most 64), e.g. x or price_2`,
      { details: { field: 'name' } },
    )
  }
}

/** Decodes every slot of a plaintext (bigints for BFV/BGV, numbers for CKKS). */
function decodeAll(session: WorkerSession, plaintext: Plaintext): bigint[] | number[] {
  const ctx = session.context
  return ctx.scheme === 'ckks' ? decodeCkks(ctx, plaintext) : decodeBatch(ctx, plaintext)
}

/** Every slot of a value: decoded, and decrypted first when it is a ciphertext (needs the secret key). */
export function decodeValue(session: WorkerSession, value: SessionValue): bigint[] | number[] {
  if (value.kind === 'plaintext') return decodeAll(session, value.handle)
  const keySet = session.requireKeySet('Decrypting')
  if (value.keySetId !== undefined && value.keySetId !== keySet.id) {
    throw new HeError('KEY_SET_MISMATCH', 'This ciphertext belongs to another secret key; it cannot be decrypted here.')
  }
  return withScope((scope) => decodeAll(session, decrypt(keySet, value.handle, scope)))
}

/** Envelope, facts and preview of the value called `name`, as the page records it. */
export function reportValue(session: WorkerSession, name: string, ms?: number): VariableReport {
  const ctx = session.context
  const value = session.requireValue(name)
  const mode = ctx.seal.ComprModeType.zstd
  const base = { name, ...(ms === undefined ? {} : { ms }) }
  const keySet = session.keySet
  const canDecrypt = value.kind === 'plaintext' || (keySet !== undefined && value.keySetId === keySet.id)
  const preview = canDecrypt ? decodeValue(session, value).slice(0, PREVIEW_SLOTS) : undefined
  if (value.kind === 'ciphertext') {
    const info = describeCiphertext(ctx, value.handle, canDecrypt ? keySet : undefined)
    const envelope = encodeEnvelope({
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      ...(value.keySetId === undefined ? {} : { keySetId: value.keySetId }),
      meta: {
        label: name,
        level: info.level,
        size: info.size,
        ...(ctx.scheme === 'ckks' ? { scale: value.handle.scale() } : {}),
      },
      payload: value.handle.saveToArray(mode) as Uint8Array,
    })
    return {
      ...base,
      kind: 'ciphertext',
      envelope,
      bytes: envelope.byteLength,
      level: info.level,
      size: info.size,
      ...(info.scaleBits === undefined ? {} : { scaleBits: info.scaleBits }),
      ...(info.noiseBudget === undefined ? {} : { noiseBudget: info.noiseBudget }),
      ...(preview ? { preview } : {}),
    }
  }
  const ckks = ctx.scheme === 'ckks'
  const level = ckks ? ctx.levelOf(value.handle) : undefined
  const envelope = encodeEnvelope({
    kind: 'plaintext',
    fingerprint: ctx.fingerprint,
    meta: { label: name, ...(level === undefined ? {} : { level, scale: value.handle.scale() }) },
    payload: value.handle.saveToArray(mode) as Uint8Array,
  })
  return {
    ...base,
    kind: 'plaintext',
    envelope,
    bytes: envelope.byteLength,
    ...(level === undefined ? {} : { level, scaleBits: Math.log2(value.handle.scale()) }),
    ...(preview ? { preview } : {}),
  }
}

/** Encodes numbers (range-checked by he-core) and, for a ciphertext, encrypts them with the public key. */
export function createVariable(session: WorkerSession, request: RequestOf<'createVariable'>): VariableReport {
  checkName(request.name)
  const ctx = session.context
  const started = performance.now()
  const scope = new SealScope()
  try {
    let plaintext: Plaintext
    if (ctx.scheme === 'ckks') {
      const values = (request.values as Array<number | bigint>).map(Number)
      plaintext = encodeCkks(ctx, values, scope)
    } else {
      plaintext = encodeBatch(ctx, request.values, scope)
    }
    if (request.kind === 'plaintext') {
      session.setValue(request.name, { kind: 'plaintext', handle: scope.release(plaintext) })
    } else {
      const keySet = session.requireKeySet('Encrypting')
      const ciphertext = encrypt(keySet, plaintext, scope)
      session.setValue(request.name, { kind: 'ciphertext', handle: scope.release(ciphertext), keySetId: keySet.id })
    }
  } finally {
    scope.dispose()
  }
  return reportValue(session, request.name, performance.now() - started)
}

/** Encrypts a plaintext variable or decrypts a ciphertext variable into a new variable. */
export function convertVariable(session: WorkerSession, request: RequestOf<'convertVariable'>): VariableReport {
  checkName(request.name)
  const source = session.requireValue(request.source)
  const keySet = session.requireKeySet(request.to === 'ciphertext' ? 'Encrypting' : 'Decrypting')
  const started = performance.now()
  if (source.kind === request.to) {
    throw new HeError('INVALID_INPUT', `'${request.source}' is already a ${request.to}.`)
  }
  const scope = new SealScope()
  try {
    if (source.kind === 'plaintext') {
      const ciphertext: Ciphertext = encrypt(keySet, source.handle, scope)
      session.setValue(request.name, { kind: 'ciphertext', handle: scope.release(ciphertext), keySetId: keySet.id })
    } else {
      if (source.keySetId !== undefined && source.keySetId !== keySet.id) {
        throw new HeError(
          'KEY_SET_MISMATCH',
          `'${request.source}' belongs to another secret key; it cannot be decrypted here.`,
        )
      }
      const plaintext = decrypt(keySet, source.handle, scope)
      session.setValue(request.name, { kind: 'plaintext', handle: scope.release(plaintext) })
    }
  } finally {
    scope.dispose()
  }
  return reportValue(session, request.name, performance.now() - started)
}

/**
 * Loads a plaintext or ciphertext file. he-core checks the envelope (kind, params,
 * key set, integrity) before SEAL sees the bytes.
 */
export function loadVariable(session: WorkerSession, request: RequestOf<'loadVariable'>): VariableReport {
  const ctx = session.context
  const keySet = session.keySet
  const envelope = decodeEnvelope(request.envelope, {
    kind: ['plaintext', 'ciphertext'],
    fingerprint: ctx.fingerprint,
    ...(keySet ? { keySetId: keySet.id } : {}),
  })
  const name = request.name ?? envelope.meta.label
  if (name === undefined) throw new HeError('INVALID_INPUT', 'This file has no name inside; give the variable a name.')
  checkName(name)
  withScope((scope) => {
    if (envelope.kind === 'ciphertext') {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
      session.setValue(name, {
        kind: 'ciphertext',
        handle: scope.release(ciphertext),
        ...(envelope.keySetId === undefined ? {} : { keySetId: envelope.keySetId }),
      })
    } else {
      const plaintext = scope.track(new ctx.seal.Plaintext())
      loadSealObject(plaintext, ctx, envelope, { kind: 'plaintext' })
      session.setValue(name, { kind: 'plaintext', handle: scope.release(plaintext) })
    }
  })
  return reportValue(session, name)
}
