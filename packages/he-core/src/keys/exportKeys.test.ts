import { beforeAll, describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch } from '../codecs/batchCodec.ts'
import { decrypt, encrypt } from '../crypto/encrypt.ts'
import { encodeBundle } from '../envelope/encodeBundle.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import {
  exportEvaluationKeys,
  exportGaloisKeys,
  exportPublicKey,
  exportSecretKey,
  importSecretKey,
  inspectEvaluationKeys,
} from './exportKeys.ts'
import { KeySet } from './KeySet.ts'

let ctx: HeContext

beforeAll(async () => {
  ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
})

function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    return error instanceof HeError ? error.code : 'not an HeError'
  }
  return 'no error'
}

describe('key export', () => {
  it('exports evaluation keys that a server can load and rotate with', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1, 3] } })
    const bundle = exportEvaluationKeys(keys)
    const inspected = inspectEvaluationKeys(ctx, bundle, keys.id)
    expect(inspected.items.map((item) => item.kind)).toEqual(['relinKeys', 'galoisKeys'])
    const galois = inspected.items[1]
    expect(galois?.seeded).toBe(true)
    withScope((scope) => {
      const loaded = scope.track(new ctx.seal.GaloisKeys())
      loadSealObject(loaded, ctx, galois!, { kind: 'galoisKeys', keySetId: keys.id })
      const ct = encrypt(keys, encodeBatch(ctx, [1, 2, 3, 4, 5], scope), scope)
      const out = scope.track(new ctx.seal.Ciphertext())
      ctx.evaluator.rotateRows(ct, 3, loaded, out)
      expect(decodeBatch(ctx, decrypt(keys, out, scope)).slice(0, 2)).toEqual([4n, 5n])
    })
  })

  it('restores a secret key with its key-set id and decrypts what it encrypted', () => {
    using keys = KeySet.generate(ctx)
    const file = exportSecretKey(keys)
    using restored = importSecretKey(ctx, file, { relin: true })
    expect(restored.id).toBe(keys.id)
    withScope((scope) => {
      const ct = encrypt(keys, encodeBatch(ctx, [42], scope), scope)
      expect(decodeBatch(ctx, decrypt(restored, ct, scope))[0]).toBe(42n)
    })
  })

  it('refuses the wrong kind, another key set, other params and secret keys', async () => {
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    using other = KeySet.generate(ctx, { galois: { steps: [1] } })
    const otherCtx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 65537 } })
    expect(codeOf(() => importSecretKey(ctx, exportPublicKey(keys)))).toBe('ENVELOPE_KIND_MISMATCH')
    expect(codeOf(() => importSecretKey(otherCtx, exportSecretKey(keys)))).toBe('PARAMS_MISMATCH')
    expect(codeOf(() => inspectEvaluationKeys(ctx, exportEvaluationKeys(other), keys.id))).toBe('KEY_SET_MISMATCH')
    expect(codeOf(() => inspectEvaluationKeys(ctx, encodeBundle([exportSecretKey(keys)])))).toBe('SECRET_KEY_REFUSED')
    expect(codeOf(() => inspectEvaluationKeys(ctx, exportGaloisKeys(keys)))).toBe('ENVELOPE_KIND_MISMATCH')
    using plain = KeySet.generate(ctx)
    expect(codeOf(() => exportEvaluationKeys(plain))).toBe('MISSING_KEY')
  })

  it('does not leak on export, import and refusal', () => {
    using keys = KeySet.generate(ctx, { relin: true })
    const file = exportSecretKey(keys)
    const report = measureHeap(
      () => {
        exportEvaluationKeys(keys)
        importSecretKey(ctx, file).dispose()
        importSecretKey(ctx, exportEvaluationKeys(keys))
      },
      { warmup: 10, iterations: 100, expectErrors: true },
    )
    expect(report.handlesAfter).toBe(report.handlesBefore)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
  })
})
