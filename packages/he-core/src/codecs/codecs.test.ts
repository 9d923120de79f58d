import { beforeAll, describe, expect, it } from 'vitest'
import { decrypt, encryptSymmetric } from '../crypto/encrypt.ts'
import { HeError } from '../errors/HeError.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import { batchRange, decodeBatch, encodeBatch } from './batchCodec.ts'
import { decodeCkks, encodeCkks } from './ckksCodec.ts'

let bfv: HeContext
let bgv: HeContext
let ckks: HeContext

beforeAll(async () => {
  bfv = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
  bgv = await getHeContext({ scheme: 'bgv', polyModulusDegree: 4096, plainModulus: { value: 65537 } })
  ckks = await getHeContext({ scheme: 'ckks', polyModulusDegree: 8192 })
})

function codeOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    if (error instanceof HeError) return error.code
    throw error
  }
  return 'no error'
}

describe('batch codec', () => {
  it('round-trips the full signed and unsigned range through encryption, numbers and bigints', () => {
    for (const ctx of [bfv, bgv]) {
      using keys = KeySet.generate(ctx)
      const { min, max } = batchRange(ctx)
      const t = ctx.plainModulus as bigint
      expect(max - min + 1n).toBe(t)
      withScope((scope) => {
        const values = [min, max, 0n, -1n, 1, -2, 12_345n]
        const decoded = decodeBatch(
          ctx,
          decrypt(keys, encryptSymmetric(keys, encodeBatch(ctx, values, scope), scope), scope),
        )
        expect(decoded.slice(0, values.length)).toEqual(values.map(BigInt))
        expect(decoded.slice(values.length).every((v) => v === 0n)).toBe(true)
        const unsigned = [0n, t - 1n, 5n]
        const plain = encodeBatch(ctx, unsigned, scope, { signed: false })
        expect(decodeBatch(ctx, plain, { signed: false }).slice(0, 3)).toEqual(unsigned)
      })
    }
  })

  it('rejects values SEAL would silently wrap', () => {
    const { min, max } = batchRange(bfv)
    withScope((scope) => {
      expect(codeOf(() => encodeBatch(bfv, [max + 1n], scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeBatch(bfv, [min - 1n], scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeBatch(bfv, [-1], scope, { signed: false }))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeBatch(bfv, [1.5], scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeBatch(bfv, new Array(4097).fill(0), scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeBatch(ckks, [1], scope))).toBe('SCHEME_MISMATCH')
      expect(() => encodeBatch(bfv, [1, 2, max + 1n], scope)).toThrow(
        /value\[2\] = 516097 is outside \[-516096, 516096\]/,
      )
      expect(scope.size).toBe(0)
    })
  })
})

describe('CKKS codec', () => {
  it('round-trips floats within the precision of the scale', () => {
    using keys = KeySet.generate(ckks)
    const values = [0, 1.5, -2.25, Math.PI, 1e3, -1e-3]
    withScope((scope) => {
      const decoded = decodeCkks(
        ckks,
        decrypt(keys, encryptSymmetric(keys, encodeCkks(ckks, values, scope), scope), scope),
      )
      for (const [i, v] of values.entries()) expect(Math.abs((decoded[i] as number) - v)).toBeLessThan(1e-6)
      expect(decoded).toHaveLength(4096)
    })
  })

  it('rejects non-finite, oversized and too many values', () => {
    withScope((scope) => {
      expect(codeOf(() => encodeCkks(ckks, [Number.NaN], scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeCkks(ckks, [2 ** 120], scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeCkks(ckks, new Array(4097).fill(0), scope))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeCkks(ckks, [1], scope, { scale: 0.5 }))).toBe('VALUE_OUT_OF_RANGE')
      expect(codeOf(() => encodeCkks(bfv, [1], scope))).toBe('SCHEME_MISMATCH')
    })
  })
})
