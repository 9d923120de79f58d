import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { parseParams } from '../params/parseParams.ts'
import { withScope } from '../scope/SealScope.ts'
import { analyzeProgram, type ProgramTarget } from './analyzeProgram.ts'
import { checkProgramKeys, missingProgramKeys } from './checkProgramKeys.ts'
import { encryptValues, type ProgramFixture, readValues } from './programTestKit.ts'
import { checkRotationKeys, nafTerms, sumElementsSteps } from './rotationKeys.ts'

const BFV: ProgramTarget = { scheme: 'bfv', polyModulusDegree: 4096 }
const CKKS: ProgramTarget = { scheme: 'ckks', polyModulusDegree: 8192 }

function program(steps: unknown[], outputs = ['r']): unknown {
  return {
    version: 1,
    inputs: [
      { name: 'x', kind: 'ciphertext' },
      { name: 'y', kind: 'ciphertext' },
      { name: 'p', kind: 'plaintext' },
    ],
    steps,
    outputs,
  }
}

function failure(fn: () => unknown): HeError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  expect.unreachable('expected an HeError')
}

let bfv: HeContext

beforeAll(async () => {
  bfv = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
})

describe('rotation keys', () => {
  it('decomposes steps into non-adjacent form, like SEAL', () => {
    expect(nafTerms(3)).toEqual([-1, 4])
    expect(nafTerms(7)).toEqual([-1, 8])
    expect(nafTerms(-5)).toEqual([-1, -4])
    expect(nafTerms(2047)).toEqual([-1, 2048])
    expect(nafTerms(6)).toEqual([-2, 8])
    for (let s = -300; s <= 300; s++) expect(nafTerms(s).reduce((a, b) => a + b, 0)).toBe(s)
    expect(sumElementsSteps(4096)).toEqual([1024, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1])
  })

  it('predicts exactly which rotations SEAL can do with a partial key set', () => {
    using keys = KeySet.generate(bfv, { galois: { steps: [1, 4, -1, 16] } })
    const gk = keys.galoisKeys
    if (!gk) expect.unreachable('no Galois keys')
    withScope((scope) => {
      const f: ProgramFixture = { ctx: bfv, keys, scheme: 'bfv' }
      const x = encryptValues(f, [5, 6, 7], scope)
      for (const step of [1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, -1, -2, -3, -4, -5, 2047, -2047]) {
        const predicted = checkRotationKeys(4096, step, (e) => gk.hasKey(e)).ok
        const out = scope.track(new bfv.seal.Ciphertext())
        let sealOk = true
        try {
          bfv.evaluator.rotateRows(x, step, gk, out)
        } catch {
          sealOk = false
        }
        expect([step, predicted]).toEqual([step, sealOk])
        // Row rotation left by `step`: slot 0 now holds x[step] (x = [5, 6, 7, 0, …]).
        const source = (((step % 2048) + 2048) % 2048) as 0 | 1 | 2
        if (sealOk) expect(readValues(f, out, scope)[0]).toBe([5n, 6n, 7n][source] ?? 0n)
      }
    })
    expect(checkRotationKeys(4096, 3, (e) => gk.hasKey(e))).toEqual({ ok: true, missingSteps: [], keySwitches: 2 })
    expect(checkRotationKeys(4096, 2, (e) => gk.hasKey(e))).toMatchObject({ ok: false, missingSteps: [2] })
    expect(checkRotationKeys(4096, 6, (e) => gk.hasKey(e))).toMatchObject({ ok: false, missingSteps: [-2, 8] })
  })
})

describe('analyzeProgram', () => {
  it('lists exactly the keys a program needs', () => {
    const analysis = analyzeProgram(
      program([
        { op: 'multiply', a: 'x', b: 'y', out: 'm' },
        { op: 'relinearize', a: 'm', out: 'm2' },
        { op: 'rotateRows', a: 'm2', steps: 3, out: 'm3' },
        { op: 'rotateRows', a: 'm3', steps: -7, out: 'm4' },
        { op: 'rotateColumns', a: 'm4', out: 'r' },
      ]),
      BFV,
    )
    expect(analysis.needsRelinKeys).toBe(true)
    expect(analysis.galoisSteps).toEqual([-7, 3])
    expect(analysis.needsColumnRotation).toBe(true)
    expect(analysis.galoisElements).toEqual([galoisElementOf(4096, -7), galoisElementOf(4096, 3), 8191])
    expect(analysis.keyGenSteps).toEqual([-7, 3, 0])
    expect(analysis.steps.map((s) => s.keySwitches)).toEqual([0, 1, 1, 1, 1])
    expect(analysis.keySwitches).toBe(4)
    expect(analysis.kinds.m).toBe('ciphertext')

    const plain = analyzeProgram(program([{ op: 'addPlain', a: 'x', b: 'p', out: 'r' }]), BFV)
    expect(plain).toMatchObject({ needsRelinKeys: false, galoisSteps: [], needsColumnRotation: false, keyGenSteps: [] })
  })

  it('counts the rotations inside sumElements and innerProduct', () => {
    const bfvSum = analyzeProgram(program([{ op: 'innerProduct', a: 'x', b: 'y', out: 'r' }]), BFV)
    expect(bfvSum.galoisSteps).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
    expect(bfvSum.needsColumnRotation).toBe(true)
    expect(bfvSum.needsRelinKeys).toBe(true)
    expect(bfvSum.keySwitches).toBe(13)
    const ckksSum = analyzeProgram(program([{ op: 'innerProductPlain', a: 'x', b: 'p', out: 'r' }]), CKKS)
    expect(ckksSum.galoisSteps).toHaveLength(12)
    expect(ckksSum.needsColumnRotation).toBe(false)
    expect(ckksSum.needsRelinKeys).toBe(false)
    // exponent 1 is a copy: no relinearization keys.
    expect(analyzeProgram(program([{ op: 'exponentiate', a: 'x', exponent: 1, out: 'r' }]), BFV).needsRelinKeys).toBe(
      false,
    )
    expect(analyzeProgram(program([{ op: 'exponentiate', a: 'x', exponent: 5, out: 'r' }]), BFV).keySwitches).toBe(4)
  })

  it('accepts an HeContext, resolved params or a plain target', () => {
    const spec = program([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }])
    expect(analyzeProgram(spec, bfv).galoisElements).toEqual([3])
    expect(analyzeProgram(spec, parseParams({ scheme: 'bgv', polyModulusDegree: 8192 })).galoisElements).toEqual([3])
  })

  it('refuses ops of another scheme, naming the step', () => {
    const mismatch = (steps: unknown[], target: ProgramTarget) => {
      const error = failure(() => analyzeProgram(program(steps), target))
      expect(error.code).toBe('SCHEME_MISMATCH')
      return error.message
    }
    expect(mismatch([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }], CKKS)).toBe(
      'step 1 (rotateRows): rotateRows needs BFV/BGV, but these parameters are CKKS (CKKS has no batching rows; use rotateVector)',
    )
    expect(mismatch([{ op: 'rotateColumns', a: 'x', out: 'r' }], CKKS)).toMatch(/^step 1 \(rotateColumns\)/)
    expect(
      mismatch(
        [
          { op: 'negate', a: 'x', out: 'n' },
          { op: 'rescaleToNext', a: 'n', out: 'r' },
        ],
        BFV,
      ),
    ).toMatch(/^step 2 \(rescaleToNext\): rescaleToNext needs CKKS, but these parameters are BFV/)
    expect(mismatch([{ op: 'rotateVector', a: 'x', steps: 1, out: 'r' }], { ...BFV, scheme: 'bgv' })).toMatch(/are BGV/)
    expect(mismatch([{ op: 'complexConjugate', a: 'x', out: 'r' }], BFV)).toMatch(/complexConjugate needs CKKS/)
    expect(mismatch([{ op: 'exponentiate', a: 'x', exponent: 2, out: 'r' }], CKKS)).toMatch(/use square\/multiply/)
    expect(mismatch([{ op: 'modSwitchToNext', a: 'p', out: 'r' }], BFV)).toMatch(/BFV plaintexts have no level/)
  })

  it('bounds rotations by the row size and the key-switch budget', () => {
    const error = failure(() => analyzeProgram(program([{ op: 'rotateVector', a: 'x', steps: -4096, out: 'r' }]), CKKS))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.message).toBe(
      'step 1 (rotateVector): rotation by -4096 is out of range; at n=8192 |steps| must be below 4096',
    )
    expect(analyzeProgram(program([{ op: 'rotateVector', a: 'x', steps: 4095, out: 'r' }]), CKKS).galoisSteps).toEqual([
      4095,
    ])
    const many = failure(() =>
      analyzeProgram(program([{ op: 'sumElements', a: 'x', out: 'r' }]), BFV, { limits: { maxKeySwitches: 5 } }),
    )
    expect(many.code).toBe('LIMIT_EXCEEDED')
    expect(many.message).toBe('program performs 12 key switches; the limit is 5')
  })

  it('says when the parameters cannot have evaluation keys at all', () => {
    const single = parseParams({ scheme: 'bfv', polyModulusDegree: 2048 })
    expect(single.coeffModulusBits).toHaveLength(1)
    const error = failure(() => analyzeProgram(program([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }]), single))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.message).toMatch(/^step 1 \(rotateRows\): needs Galois keys, which these parameters cannot have/)
    expect(analyzeProgram(program([{ op: 'multiply', a: 'x', b: 'y', out: 'r' }]), single).needsRelinKeys).toBe(false)
  })
})

describe('checkProgramKeys', () => {
  let keys: KeySet
  beforeAll(() => {
    keys = KeySet.generate(bfv, { relin: true, galois: { steps: [1, 2, 4, -1] } })
  })
  afterAll(() => keys.dispose())

  const spec = program([
    { op: 'multiply', a: 'x', b: 'y', out: 'm' },
    { op: 'relinearize', a: 'm', out: 'm2' },
    { op: 'rotateRows', a: 'm2', steps: 3, out: 'm3' },
    { op: 'rotateRows', a: 'm3', steps: 8, out: 'm4' },
    { op: 'rotateColumns', a: 'm4', out: 'r' },
  ])

  it('lists every missing key by step, before any work', () => {
    const analysis = analyzeProgram(spec, bfv)
    const missing = missingProgramKeys(analysis, { galoisKeys: keys.galoisKeys })
    expect(missing.map((m) => [m.stepIndex, m.key, m.steps])).toEqual([
      [1, 'relin', []],
      [3, 'galois', [8]],
      [4, 'galois', [0]],
    ])
    expect(missing[0]?.message).toBe('step 2 (relinearize): needs relinearization keys; none were given')
    expect(missing[1]?.message).toBe(
      'step 4 (rotateRows): the Galois keys given have no key for rotation by 8; generate Galois keys with these steps (or the power-of-two set)',
    )
    expect(missing[2]?.message).toMatch(/the column rotation \(Galois element 8191\)/)
    const error = failure(() => checkProgramKeys(analysis, {}))
    expect(error.code).toBe('MISSING_KEY')
    expect(error.details).toMatchObject({ stepIndex: 1, key: 'relin', missing: 4 })
    expect(missingProgramKeys(analysis, {})[1]?.message).toMatch(/no Galois keys were given, needed for rotation by 3/)
    using pair = KeySet.generate(bfv, { galois: { steps: [1, 2] } })
    // 3 = 4 − 1 in SEAL's decomposition: with keys for 1 and 2 only, it cannot be done.
    expect(missingProgramKeys(analysis, pair).find((m) => m.stepIndex === 2)?.steps).toEqual([3])
  })

  it('passes with keys generated from the analysis', () => {
    const analysis = analyzeProgram(spec, bfv)
    using exact = KeySet.generate(bfv, { relin: true, galois: { steps: analysis.keyGenSteps } })
    expect(() => checkProgramKeys(analysis, exact)).not.toThrow()
    // A key lookup can also be plain data, e.g. the elements listed in an uploaded key's metadata.
    const elements = new Set(analysis.galoisElements)
    expect(
      missingProgramKeys(analysis, {
        relinKeys: { hasKey: (p) => p === 2 },
        galoisKeys: { hasKey: (e) => elements.has(e) },
      }),
    ).toEqual([])
  })
})
