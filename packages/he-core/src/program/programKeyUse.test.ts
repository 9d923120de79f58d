import { beforeAll, describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch } from '../codecs/batchCodec.ts'
import { decrypt, encryptSymmetric } from '../crypto/encrypt.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { exportEvaluationKeys } from '../keys/exportKeys.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { analyzeProgram } from './analyzeProgram.ts'
import { missingProgramKeys } from './checkProgramKeys.ts'
import { programKeyUse } from './programKeyUse.ts'
import { columnRotationElement } from './rotationKeys.ts'
import { runAnalyzedProgram } from './runProgram.ts'

const N = 4096
const ROW = N / 2
const element = (step: number) => galoisElementOf(N, step)
const lookup = (elements: readonly number[]) => ({ hasKey: (e: number) => elements.includes(e) })

function program(steps: unknown[]): unknown {
  return { version: 1, inputs: [{ name: 'x', kind: 'ciphertext' }], steps, outputs: ['r'] }
}

let ctx: HeContext
beforeAll(async () => {
  ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: N })
})

describe('programKeyUse: the keys a program really uses of a key set', () => {
  it('a rotation by one uses one element of a big set, and no relinearization key', () => {
    const set = Array.from({ length: 200 }, (_, i) => element(i + 1))
    const analysis = analyzeProgram(program([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }]), ctx)
    expect(programKeyUse(analysis, lookup(set))).toEqual({ relinKeys: false, galoisElements: [element(1)] })
  })

  it('a rotation without its own key uses its NAF terms, as SEAL does; a column rotation its element', () => {
    const set = [element(-1), element(4), element(7), columnRotationElement(N)]
    const analysis = analyzeProgram(
      program([
        { op: 'rotateRows', a: 'x', steps: 3, out: 'a' },
        { op: 'rotateRows', a: 'a', steps: 7, out: 'b' },
        { op: 'rotateColumns', a: 'b', out: 'r' },
      ]),
      ctx,
    )
    expect(missingProgramKeys(analysis, { galoisKeys: lookup(set) })).toEqual([])
    expect(programKeyUse(analysis, lookup(set)).galoisElements).toEqual(
      [element(-1), element(4), element(7), columnRotationElement(N)].sort((a, b) => a - b),
    )
  })

  it('the keys it names, loaded alone, run the program to the plain result', () => {
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [-1, 1, 2, 4, 5, 6, 7, 8, 9] } })
    const bytes = exportEvaluationKeys(keys, { compression: 'packed' })
    const steps = [
      { op: 'multiply', a: 'x', b: 'x', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'm2' },
      { op: 'rotateRows', a: 'm2', steps: 3, out: 'a' },
      { op: 'rotateRows', a: 'a', steps: 7, out: 'r' },
    ]
    const analysis = analyzeProgram(program(steps), ctx)
    using whole = EvaluationKeys.load(ctx, bytes)
    const use = programKeyUse(analysis, whole.galoisKeys)
    expect(use).toEqual({
      relinKeys: true,
      galoisElements: [element(-1), element(4), element(7)].sort((a, b) => a - b),
    })
    const values = Array.from({ length: ROW }, (_, i) => i % 50)
    // The context's encoder and decryptor are made on first use and live with it: made first.
    withScope((scope) => decrypt(keys, encryptSymmetric(keys, encodeBatch(ctx, [1], scope), scope), scope))
    const before = liveSealHandles()
    using part = EvaluationKeys.load(ctx, bytes, { onlyGaloisElements: use.galoisElements, relinKeys: use.relinKeys })
    expect(missingProgramKeys(analysis, { relinKeys: part.relinKeys, galoisKeys: part.galoisKeys })).toEqual([])
    withScope((scope) => {
      const x = encryptSymmetric(keys, encodeBatch(ctx, values, scope), scope)
      const result = runAnalyzedProgram(ctx, analysis, {
        inputs: { x },
        relinKeys: part.relinKeys,
        galoisKeys: part.galoisKeys,
      })
      for (const output of Object.values(result.outputs)) scope.track(output)
      const row = decodeBatch(ctx, decrypt(keys, result.outputs.r as never, scope))
        .slice(0, ROW)
        .map(Number)
      // Oracle: square, then rotate the row left by 3 + 7.
      expect(row).toEqual(values.map((_, i) => (values[(i + 10) % ROW] as number) ** 2))
    })
    part.dispose()
    expect(liveSealHandles()).toBe(before)
  })
})
