import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withScope } from '../scope/SealScope.ts'
import type { ProgramStep } from './ProgramSpec.ts'
import { parseProgram } from './parseProgram.ts'
import { type NoiseTarget, predictNoise } from './predictNoise.ts'
import { encodeValues, encryptValues, type ProgramFixture, programFixture } from './programTestKit.ts'
import { runProgram } from './runProgram.ts'

/** Tolerance of the model against SEAL's measured budget, in bits (noise is random). */
const TOLERANCE_BITS = 6

const fixtures: ProgramFixture[] = []

beforeAll(async () => {
  fixtures.push(await programFixture('bfv', { scheme: 'bfv', polyModulusDegree: 8192 }))
  fixtures.push(await programFixture('bgv', { scheme: 'bgv', polyModulusDegree: 8192 }))
  fixtures.push(await programFixture('bfv', { scheme: 'bfv', polyModulusDegree: 4096 }))
})

afterAll(() => {
  for (const f of fixtures) f.keys.dispose()
})

function targetOf(f: ProgramFixture): NoiseTarget {
  return { ...f.ctx.params, plainModulus: f.ctx.plainModulus }
}

function program(steps: ProgramStep[]) {
  return parseProgram({
    version: 1,
    inputs: [
      { name: 'x', kind: 'ciphertext' },
      { name: 'y', kind: 'ciphertext' },
      { name: 'p', kind: 'plaintext' },
    ],
    steps,
    outputs: steps.map((s) => s.out),
  }).program
}

/** Runs the program in SEAL and returns [measured, predicted] budgets per step. */
function measure(f: ProgramFixture, steps: ProgramStep[]): Array<[number, number]> {
  return withScope((scope) => {
    const x = encryptValues(f, [3, 4, 5], scope)
    const y = encryptValues(f, [6, 7, 8], scope)
    const p = encodeValues(f, [2, 2, 2], scope)
    const budget = (ct: typeof x) => f.keys.decryptor.invariantNoiseBudget(ct)
    const spec = program(steps)
    const predicted = predictNoise(spec, targetOf(f), {
      x: { budget: budget(x) },
      y: { budget: budget(y) },
    })
    const result = runProgram(f.ctx, spec, {
      inputs: { x, y, p },
      relinKeys: f.keys.relinKeys,
      galoisKeys: f.keys.galoisKeys,
      decryptor: f.keys.decryptor,
    })
    for (const output of Object.values(result.outputs)) scope.track(output)
    return result.steps.map((s, i) => [s.noiseBudget ?? -1, predicted.steps[i]?.budget ?? -1])
  })
}

describe('predictNoise (BFV/BGV) against SEAL', () => {
  const steps: ProgramStep[] = [
    { op: 'multiply', a: 'x', b: 'y', out: 'm' },
    { op: 'relinearize', a: 'm', out: 'r' },
    { op: 'add', a: 'r', b: 'x', out: 'ad' },
    { op: 'multiplyPlain', a: 'x', b: 'p', out: 'mp' },
    { op: 'addPlain', a: 'x', b: 'p', out: 'ap' },
    { op: 'rotateRows', a: 'x', steps: 1, out: 'rot' },
    { op: 'modSwitchToNext', a: 'x', out: 'ms' },
    { op: 'modSwitchToNext', a: 'r', out: 'ms2' },
    { op: 'sumElements', a: 'x', out: 'sum' },
    { op: 'multiply', a: 'r', b: 'x', out: 'm3' },
  ]
  it.each([0, 1])('is within a few bits of the measured budget, step by step (fixture %i, n = 8192)', (i) => {
    const f = fixtures[i] as ProgramFixture
    const pairs = measure(f, steps)
    for (const [index, [measured, predicted]] of pairs.entries()) {
      expect({ step: index + 1, off: Math.abs(measured - predicted) <= TOLERANCE_BITS, measured, predicted }).toEqual({
        step: index + 1,
        off: true,
        measured,
        predicted,
      })
    }
  })

  it('predicts the step where the budget runs out (BFV n = 4096: the second square)', () => {
    const f = fixtures[2] as ProgramFixture
    const squares = program([
      { op: 'square', a: 'x', out: 's1' },
      { op: 'relinearize', a: 's1', out: 'r1' },
      { op: 'square', a: 'r1', out: 's2' },
    ])
    const prediction = predictNoise(squares, targetOf(f))
    expect(prediction.firstExhausted).toBe(2)
    expect(prediction.steps[0]?.spent).toBeGreaterThan(25)
    expect(prediction.steps[1]?.spent).toBe(0)
    // The fresh estimate matches SEAL's fresh budget.
    const fresh = withScope((scope) => f.keys.decryptor.invariantNoiseBudget(encryptValues(f, [1], scope)))
    expect(Math.abs((prediction.inputs.x?.budget ?? 0) - fresh)).toBeLessThanOrEqual(2)
  })
})

describe('predictNoise (CKKS)', () => {
  it('tracks levels and scales, and flags a rescale with no level left', () => {
    const target: NoiseTarget = {
      scheme: 'ckks',
      polyModulusDegree: 8192,
      coeffModulusBits: [60, 40, 40, 60],
      scaleBits: 40,
    }
    const steps = program([
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'r' },
      { op: 'rescaleToNext', a: 'r', out: 's' },
      { op: 'square', a: 's', out: 'q' },
      { op: 'relinearize', a: 'q', out: 'q2' },
      { op: 'rescaleToNext', a: 'q2', out: 's2' },
      { op: 'square', a: 's2', out: 'q3' },
    ])
    const prediction = predictNoise(steps, target)
    expect(prediction.steps.map((s) => [s.level, s.scaleBits])).toEqual([
      [2, 80],
      [2, 80],
      [1, 40],
      [1, 80],
      [1, 80],
      [0, 40],
      [0, 80],
    ])
    // 2^80 does not fit the last level's 60-bit modulus.
    expect(prediction.firstExhausted).toBe(6)
  })
})
