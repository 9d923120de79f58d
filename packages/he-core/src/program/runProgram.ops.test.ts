import type { Ciphertext, Plaintext } from 'node-seal/throws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SchemeName } from '../params/ParamsSpec.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import type { ProgramInput, ProgramStep } from './ProgramSpec.ts'
import {
  encodeValues,
  encryptValues,
  maxError,
  type ProgramFixture,
  programFixture,
  randomValues,
  readValues,
  seededRandom,
} from './programTestKit.ts'
import { runProgram } from './runProgram.ts'
import { runProgramPlain } from './runProgramPlain.ts'

const INPUTS: ProgramInput['inputs'] = [
  { name: 'x', kind: 'ciphertext' },
  { name: 'y', kind: 'ciphertext' },
  { name: 'p', kind: 'plaintext' },
]

interface OpCase {
  name: string
  steps: ProgramStep[]
  /** CKKS absolute tolerance (sums over 4096 slots accumulate more error). */
  tolerance?: number
}

const COMMON: OpCase[] = [
  { name: 'add', steps: [{ op: 'add', a: 'x', b: 'y', out: 'r' }] },
  { name: 'sub', steps: [{ op: 'sub', a: 'x', b: 'y', out: 'r' }] },
  { name: 'negate', steps: [{ op: 'negate', a: 'x', out: 'r' }] },
  { name: 'multiply', steps: [{ op: 'multiply', a: 'x', b: 'y', out: 'r' }] },
  {
    name: 'multiply + relinearize',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'r' },
    ],
  },
  { name: 'square', steps: [{ op: 'square', a: 'x', out: 'r' }] },
  { name: 'addPlain', steps: [{ op: 'addPlain', a: 'x', b: 'p', out: 'r' }] },
  { name: 'subPlain', steps: [{ op: 'subPlain', a: 'x', b: 'p', out: 'r' }] },
  { name: 'multiplyPlain', steps: [{ op: 'multiplyPlain', a: 'x', b: 'p', out: 'r' }] },
  { name: 'modSwitchToNext', steps: [{ op: 'modSwitchToNext', a: 'x', out: 'r' }] },
  { name: 'modSwitchToLast', steps: [{ op: 'modSwitchToLast', a: 'x', out: 'r' }] },
  { name: 'sumElements', steps: [{ op: 'sumElements', a: 'x', out: 'r' }], tolerance: 1e-3 },
  { name: 'innerProduct', steps: [{ op: 'innerProduct', a: 'x', b: 'y', out: 'r' }], tolerance: 1e-3 },
  { name: 'innerProductPlain', steps: [{ op: 'innerProductPlain', a: 'x', b: 'p', out: 'r' }], tolerance: 1e-3 },
]

const BATCHED: OpCase[] = [
  { name: 'exponentiate 1', steps: [{ op: 'exponentiate', a: 'x', exponent: 1, out: 'r' }] },
  { name: 'exponentiate 2', steps: [{ op: 'exponentiate', a: 'x', exponent: 2, out: 'r' }] },
  { name: 'rotateRows +3 (composed from 4 and −1)', steps: [{ op: 'rotateRows', a: 'x', steps: 3, out: 'r' }] },
  { name: 'rotateRows −5', steps: [{ op: 'rotateRows', a: 'x', steps: -5, out: 'r' }] },
  { name: 'rotateRows 0', steps: [{ op: 'rotateRows', a: 'x', steps: 0, out: 'r' }] },
  { name: 'rotateColumns', steps: [{ op: 'rotateColumns', a: 'x', out: 'r' }] },
  {
    name: 'multiply → relinearize → rotateRows → add',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'r1' },
      { op: 'rotateRows', a: 'r1', steps: 1, out: 'r2' },
      { op: 'add', a: 'r2', b: 'x', out: 'r' },
    ],
  },
]

const CKKS: OpCase[] = [
  {
    name: 'multiply → relinearize → rescaleToNext',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'm2' },
      { op: 'rescaleToNext', a: 'm2', out: 'r' },
    ],
  },
  { name: 'rotateVector +3', steps: [{ op: 'rotateVector', a: 'x', steps: 3, out: 'r' }] },
  { name: 'rotateVector −5', steps: [{ op: 'rotateVector', a: 'x', steps: -5, out: 'r' }] },
  { name: 'complexConjugate', steps: [{ op: 'complexConjugate', a: 'x', out: 'r' }] },
  {
    name: 'modSwitchToNext of a plaintext, then multiplyPlain at that level',
    steps: [
      { op: 'modSwitchToNext', a: 'x', out: 'x1' },
      { op: 'modSwitchToNext', a: 'p', out: 'p1' },
      { op: 'multiplyPlain', a: 'x1', b: 'p1', out: 'r' },
    ],
  },
  {
    name: 'multiply → relinearize → rescale → rotate → add (align)',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'm2' },
      { op: 'rescaleToNext', a: 'm2', out: 'm3' },
      { op: 'rotateVector', a: 'm3', steps: 2, out: 'm4' },
      { op: 'add', a: 'm4', b: 'x', out: 'r', align: true },
    ],
  },
  {
    name: 'addPlain with align (plaintext at the top level, ciphertext rescaled)',
    steps: [
      { op: 'square', a: 'x', out: 's' },
      { op: 'relinearize', a: 's', out: 's2' },
      { op: 'rescaleToNext', a: 's2', out: 's3' },
      { op: 'addPlain', a: 's3', b: 'p', out: 'r', align: true },
    ],
  },
]

const SCHEMES: SchemeName[] = ['bfv', 'bgv', 'ckks']
const fixtures = new Map<SchemeName, ProgramFixture>()
const baseline = { handles: 0 }

beforeAll(async () => {
  for (const scheme of SCHEMES) {
    const f = await programFixture(scheme)
    // Encryptor and decryptor are made on first use; make them before the baseline.
    void f.keys.encryptor
    void f.keys.decryptor
    fixtures.set(scheme, f)
  }
  baseline.handles = liveSealHandles()
})

afterAll(() => {
  for (const f of fixtures.values()) f.keys.dispose()
})

function check(scheme: SchemeName, opCase: OpCase, seed: number) {
  const f = fixtures.get(scheme) as ProgramFixture
  const random = seededRandom(seed)
  const ckks = scheme === 'ckks'
  const count = 64
  const bound = ckks ? 2 : 1000
  const data = {
    x: randomValues(scheme, count, random, bound),
    y: randomValues(scheme, count, random, bound),
    p: randomValues(scheme, count, random, bound).map((v) => v || 1),
  }
  const spec = { version: 1, inputs: INPUTS, steps: opCase.steps, outputs: ['r'] }
  const expected = runProgramPlain(spec, { ...f.ctx.params, plainModulus: f.ctx.plainModulus }, data).r ?? []
  withScope((scope) => {
    const inputs: Record<string, Ciphertext | Plaintext> = {
      x: encryptValues(f, data.x, scope),
      y: encryptValues(f, data.y, scope),
      p: encodeValues(f, data.p, scope),
    }
    const result = runProgram(f.ctx, spec, {
      inputs,
      relinKeys: f.keys.relinKeys,
      galoisKeys: f.keys.galoisKeys,
      decryptor: f.keys.decryptor,
    })
    const output = scope.track(result.outputs.r as Ciphertext | Plaintext)
    const actual = readValues(f, output, scope)
    if (ckks) expect(maxError(actual, expected)).toBeLessThan(opCase.tolerance ?? 1e-4)
    else expect(actual).toEqual(expected)
    expect(result.steps).toHaveLength(opCase.steps.length)
    for (const report of result.steps) {
      expect(report.timeMs).toBeGreaterThanOrEqual(0)
      expect(report.level).toBeGreaterThanOrEqual(0)
      if (ckks) expect(report.scaleLog2).toBeGreaterThan(0)
      else expect(report.noiseBudget).toBeGreaterThan(0)
    }
  })
  expect(liveSealHandles()).toBe(baseline.handles)
}

describe.each(SCHEMES)('runProgram %s: every op against the plain oracle', (scheme) => {
  const cases = [...COMMON, ...(scheme === 'ckks' ? CKKS : BATCHED)]
  it.each(cases.map((c, i) => [c.name, c, i] as const))('%s', (_name, opCase, index) => {
    check(scheme, opCase, 1000 + index)
  })
})

describe('step reports', () => {
  it('track level, size, noise budget and scale through a pipeline', () => {
    const f = fixtures.get('bfv') as ProgramFixture
    withScope((scope) => {
      const x = encryptValues(f, [1, 2, 3], scope)
      const result = runProgram(
        f.ctx,
        {
          version: 1,
          inputs: [{ name: 'x', kind: 'ciphertext' }],
          steps: [
            { op: 'square', a: 'x', out: 's' },
            { op: 'relinearize', a: 's', out: 'r' },
            { op: 'modSwitchToNext', a: 'r', out: 'm' },
          ],
          outputs: ['m', 'x'],
        },
        { inputs: { x }, relinKeys: f.keys.relinKeys, decryptor: f.keys.decryptor },
      )
      const [square, relin, switched] = result.steps
      expect(square).toMatchObject({ op: 'square', out: 's', kind: 'ciphertext', size: 3, level: 1 })
      expect(relin).toMatchObject({ size: 2, level: 1 })
      expect(switched).toMatchObject({ size: 2, level: 0 })
      expect(relin?.noiseBudget).toBeLessThanOrEqual(square?.noiseBudget ?? 0)
      // An output that is an input comes back as a copy the caller owns.
      expect(result.outputs.x).not.toBe(x)
      for (const value of Object.values(result.outputs)) scope.track(value)
      expect(readValues(f, result.outputs.x as Ciphertext, scope).slice(0, 3)).toEqual([1n, 2n, 3n])
      expect(readValues(f, result.outputs.m as Ciphertext, scope).slice(0, 3)).toEqual([1n, 4n, 9n])
    })
    const c = fixtures.get('ckks') as ProgramFixture
    withScope((scope) => {
      const x = encryptValues(c, [0.5], scope)
      const result = runProgram(
        c.ctx,
        {
          version: 1,
          inputs: [{ name: 'x', kind: 'ciphertext' }],
          steps: [
            { op: 'square', a: 'x', out: 's' },
            { op: 'rescaleToNext', a: 's', out: 'r' },
          ],
          outputs: ['r'],
        },
        { inputs: { x } },
      )
      scope.track(result.outputs.r as Ciphertext)
      expect(result.steps[0]?.scaleLog2).toBeCloseTo(80, 6)
      expect(result.steps[1]?.scaleLog2).toBeCloseTo(40, 3)
      expect(result.steps[1]?.level).toBe(1)
      expect(result.steps[1]?.noiseBudget).toBeUndefined()
    })
  })
})
