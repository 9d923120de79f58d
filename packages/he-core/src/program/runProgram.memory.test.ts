import type { Ciphertext, Plaintext } from 'node-seal/throws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import type { SchemeName } from '../params/ParamsSpec.ts'
import { liveSealHandles, SealScope, withScope } from '../scope/SealScope.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import type { ProgramInput, ProgramStep } from './ProgramSpec.ts'
import { encodeValues, encryptValues, type ProgramFixture, programFixture } from './programTestKit.ts'
import { type RunProgramOptions, runProgram } from './runProgram.ts'

// n=4096 everywhere (CKKS [40, 20, 40] at 2^20): hundreds of runs must stay quick.
const PARAMS = {
  bfv: { scheme: 'bfv', polyModulusDegree: 4096 },
  bgv: { scheme: 'bgv', polyModulusDegree: 4096 },
  ckks: { scheme: 'ckks', polyModulusDegree: 4096 },
} as const

const INPUTS: ProgramInput['inputs'] = [
  { name: 'x', kind: 'ciphertext' },
  { name: 'y', kind: 'ciphertext' },
  { name: 'p', kind: 'plaintext' },
]

const COMMON: ProgramStep[] = [
  { op: 'add', a: 'x', b: 'y', out: 'add' },
  { op: 'sub', a: 'x', b: 'y', out: 'sub' },
  { op: 'negate', a: 'x', out: 'neg' },
  { op: 'multiply', a: 'x', b: 'y', out: 'mul' },
  { op: 'relinearize', a: 'mul', out: 'rel' },
  { op: 'square', a: 'x', out: 'sq' },
  { op: 'addPlain', a: 'x', b: 'p', out: 'ap' },
  { op: 'subPlain', a: 'x', b: 'p', out: 'sp' },
  { op: 'multiplyPlain', a: 'x', b: 'p', out: 'mp' },
  { op: 'sumElements', a: 'x', out: 'sum' },
  { op: 'innerProduct', a: 'x', b: 'y', out: 'ip' },
  { op: 'innerProductPlain', a: 'x', b: 'p', out: 'ipp' },
  { op: 'modSwitchToNext', a: 'x', out: 'msn' },
  { op: 'modSwitchToLast', a: 'y', out: 'msl' },
]

/** Every op of each scheme in one program, plus the `align` paths (copies made and freed mid-run). */
const EVERY_STEP: Record<SchemeName, ProgramStep[]> = {
  bfv: [
    ...COMMON,
    { op: 'exponentiate', a: 'x', exponent: 2, out: 'exp' },
    { op: 'rotateRows', a: 'x', steps: 3, out: 'rr' },
    { op: 'rotateColumns', a: 'x', out: 'rc' },
    { op: 'add', a: 'msn', b: 'y', out: 'aligned', align: true },
  ],
  bgv: [
    ...COMMON,
    { op: 'exponentiate', a: 'x', exponent: 2, out: 'exp' },
    { op: 'rotateRows', a: 'x', steps: -5, out: 'rr' },
    { op: 'rotateColumns', a: 'x', out: 'rc' },
    { op: 'add', a: 'msn', b: 'y', out: 'aligned', align: true },
  ],
  ckks: [
    ...COMMON,
    { op: 'rescaleToNext', a: 'rel', out: 'res' },
    { op: 'rotateVector', a: 'x', steps: 3, out: 'rv' },
    { op: 'complexConjugate', a: 'x', out: 'cc' },
    { op: 'modSwitchToNext', a: 'p', out: 'p1' },
    // Levels differ, scales equal: align mod-switches copies (rescaling by a 20-bit
    // prime moves the scale by 2%, too far to align, so no rescaled operand here).
    { op: 'add', a: 'msn', b: 'x', out: 'aligned', align: true },
    { op: 'addPlain', a: 'msn', b: 'p', out: 'alignedPlain', align: true },
    { op: 'addPlain', a: 'x', b: 'p1', out: 'alignedDown', align: true },
  ],
}

const SCHEMES: SchemeName[] = ['bfv', 'bgv', 'ckks']
const fixtures = new Map<
  SchemeName,
  { f: ProgramFixture; scope: SealScope; inputs: Record<string, Ciphertext | Plaintext> }
>()

beforeAll(async () => {
  for (const scheme of SCHEMES) {
    const f = await programFixture(scheme, PARAMS[scheme])
    void f.keys.encryptor
    void f.keys.decryptor
    const scope = new SealScope()
    const values = scheme === 'ckks' ? [0.5, -1.25, 2] : [3, -4, 5]
    const inputs = {
      x: encryptValues(f, values, scope),
      y: encryptValues(f, values, scope),
      p: encodeValues(f, values, scope),
    }
    fixtures.set(scheme, { f, scope, inputs })
  }
})

afterAll(() => {
  for (const { f, scope } of fixtures.values()) {
    scope.dispose()
    f.keys.dispose()
  }
})

function optionsOf(scheme: SchemeName): RunProgramOptions {
  const { f, inputs } = fixtures.get(scheme) as { f: ProgramFixture; inputs: Record<string, Ciphertext | Plaintext> }
  return { inputs, relinKeys: f.keys.relinKeys, galoisKeys: f.keys.galoisKeys, decryptor: f.keys.decryptor }
}

function runEveryStep(scheme: SchemeName): void {
  const { f } = fixtures.get(scheme) as { f: ProgramFixture }
  const steps = EVERY_STEP[scheme]
  // Without a decryptor: measuring the noise budget after every step would triple
  // the time, and the noise path is exercised by the error paths below.
  const result = runProgram(
    f.ctx,
    { version: 1, inputs: INPUTS, steps, outputs: ['aligned', 'sum', 'x'] },
    { ...optionsOf(scheme), decryptor: undefined },
  )
  if (result.steps.length !== steps.length) expect.unreachable('not every step ran')
  for (const value of Object.values(result.outputs)) value.delete()
}

interface ErrorPath {
  code: HeErrorCode
  scheme: SchemeName
  steps: ProgramStep[]
  options?: Partial<RunProgramOptions>
}

const ERROR_PATHS: ErrorPath[] = [
  { code: 'INVALID_PROGRAM', scheme: 'bfv', steps: [{ op: 'negate', a: 'nope', out: 'r' }] },
  { code: 'SCHEME_MISMATCH', scheme: 'ckks', steps: [{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }] },
  {
    code: 'MISSING_KEY',
    scheme: 'bfv',
    steps: [{ op: 'relinearize', a: 'x', out: 'r' }],
    options: { relinKeys: undefined },
  },
  {
    code: 'MISSING_KEY',
    scheme: 'bgv',
    steps: [{ op: 'sumElements', a: 'x', out: 'r' }],
    options: { galoisKeys: undefined },
  },
  { code: 'INVALID_INPUT', scheme: 'bfv', steps: [{ op: 'negate', a: 'x', out: 'r' }], options: { inputs: {} } },
  {
    code: 'LEVEL_MISMATCH',
    scheme: 'bfv',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'modSwitchToNext', a: 'm', out: 'm1' },
      { op: 'add', a: 'm1', b: 'y', out: 'r' },
    ],
  },
  {
    code: 'SCALE_MISMATCH',
    scheme: 'ckks',
    steps: [
      { op: 'square', a: 'x', out: 's' },
      { op: 'rescaleToNext', a: 's', out: 's1' },
      { op: 'modSwitchToNext', a: 'y', out: 'y1' },
      { op: 'add', a: 's1', b: 'y1', out: 'r' },
    ],
  },
  {
    code: 'INVALID_PROGRAM',
    scheme: 'ckks',
    steps: [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'rotateVector', a: 'm', steps: 1, out: 'r' },
    ],
  },
  {
    code: 'NOISE_BUDGET_EXHAUSTED',
    scheme: 'bfv',
    steps: [
      { op: 'square', a: 'x', out: 's1' },
      { op: 'relinearize', a: 's1', out: 'r1' },
      { op: 'square', a: 'r1', out: 's2' },
      { op: 'relinearize', a: 's2', out: 'r' },
    ],
  },
]

function runErrorPath(path: ErrorPath): void {
  const { f, inputs } = fixtures.get(path.scheme) as {
    f: ProgramFixture
    inputs: Record<string, Ciphertext | Plaintext>
  }
  try {
    const spec = { version: 1, inputs: INPUTS, steps: path.steps, outputs: ['r'] }
    const result = runProgram(f.ctx, spec, { ...optionsOf(path.scheme), ...path.options })
    for (const value of Object.values(result.outputs)) value.delete()
  } catch (error) {
    if (error instanceof HeError && error.code === path.code) return
    throw error
  }
  void inputs
  expect.unreachable(`expected ${path.code}`)
}

describe('runProgram memory', () => {
  // BGV runs exactly the evaluator paths of BFV (rotateRows/rotateColumns), so it gets
  // fewer rounds: on this 2-core machine one all-ops run costs ~150 ms at n=4096.
  it.each([
    ['bfv', 100],
    ['ckks', 100],
    ['bgv', 40],
  ] as const)('%s: every step, %i times, leaves no handle and no heap growth', (scheme, iterations) => {
    const before = liveSealHandles()
    const report = measureHeap(() => runEveryStep(scheme), { warmup: 5, iterations })
    expect(report.handlesAfter).toBe(before)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
  })

  it('every error path, 100 times, leaves no handle and no heap growth', () => {
    const before = liveSealHandles()
    const report = measureHeap(
      () => {
        for (const path of ERROR_PATHS) runErrorPath(path)
      },
      { warmup: 5, iterations: 100 },
    )
    expect(report.handlesAfter).toBe(before)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
  })

  it('a SEAL exception inside a step (wrapped, naming the step) leaks nothing either', () => {
    const { f } = fixtures.get('bfv') as { f: ProgramFixture }
    withScope((scope) => {
      const x = encryptValues(f, [1], scope)
      const before = liveSealHandles()
      // x − x under two names is transparent: only SEAL can see it. Each throw costs
      // Emscripten 16 bytes of its stack (NODE-SEAL-FACTS.md §4), so keep the count modest.
      const report = measureHeap(
        () => {
          try {
            runProgram(
              f.ctx,
              {
                version: 1,
                inputs: INPUTS.slice(0, 2),
                steps: [{ op: 'sub', a: 'x', b: 'y', out: 'r' }],
                outputs: ['r'],
              },
              { inputs: { x, y: x } },
            )
          } catch (error) {
            if (error instanceof HeError && error.code === 'SEAL_ERROR') return
            throw error
          }
          expect.unreachable('expected SEAL_ERROR')
        },
        { warmup: 10, iterations: 200 },
      )
      expect(report.handlesAfter).toBe(before)
      expect(report.heapAfter).toBe(report.heapAfterWarmup)
    })
  })
})
