import type { Ciphertext, Plaintext } from 'node-seal/throws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeCkks } from '../codecs/ckksCodec.ts'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { liveSealHandles, type SealScope, withScope } from '../scope/SealScope.ts'
import type { ProgramStep } from './ProgramSpec.ts'
import { encodeValues, encryptValues, type ProgramFixture, programFixture, readValues } from './programTestKit.ts'
import { type RunProgramOptions, runProgram } from './runProgram.ts'

let bfv: ProgramFixture
let ckks: ProgramFixture

beforeAll(async () => {
  bfv = await programFixture('bfv')
  ckks = await programFixture('ckks')
  // The key sets make their encryptor and decryptor on first use: do it now, outside the leak checks.
  for (const f of [bfv, ckks]) {
    void f.keys.encryptor
    void f.keys.decryptor
  }
})

afterAll(() => {
  bfv.keys.dispose()
  ckks.keys.dispose()
})

function spec(steps: ProgramStep[], outputs = ['r']) {
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

type Inputs = Record<string, Ciphertext | Plaintext>

function standardInputs(f: ProgramFixture, scope: SealScope): Inputs {
  const values = f.scheme === 'ckks' ? [0.5, 1.5, -2] : [3, -4, 5]
  return { x: encryptValues(f, values, scope), y: encryptValues(f, values, scope), p: encodeValues(f, values, scope) }
}

/**
 * Runs a program that must fail with `code` and returns the message. Checks that
 * nothing leaked and, unless `sealThrows`, that SEAL never threw (the error was
 * found before SEAL was called).
 */
function expectFailure(
  f: ProgramFixture,
  code: HeErrorCode,
  steps: ProgramStep[] | unknown,
  options: (scope: SealScope) => Partial<RunProgramOptions> = () => ({}),
  sealThrows = false,
): string {
  const before = sealExceptionCount()
  const handlesBefore = liveSealHandles()
  let message = ''
  withScope((scope) => {
    const all: RunProgramOptions = {
      inputs: standardInputs(f, scope),
      relinKeys: f.keys.relinKeys,
      galoisKeys: f.keys.galoisKeys,
      decryptor: f.keys.decryptor,
      ...options(scope),
    }
    try {
      const result = runProgram(f.ctx, Array.isArray(steps) ? spec(steps as ProgramStep[]) : steps, all)
      for (const value of Object.values(result.outputs)) value.delete()
    } catch (error) {
      expect(error).toBeInstanceOf(HeError)
      expect((error as HeError).code).toBe(code)
      message = (error as HeError).message
      return
    }
    expect.unreachable(`expected ${code}`)
  })
  expect(liveSealHandles()).toBe(handlesBefore)
  expect(sealExceptionCount() - before).toBe(sealThrows ? 1 : 0)
  return message
}

const negate: ProgramStep[] = [{ op: 'negate', a: 'x', out: 'r' }]

describe('runProgram preconditions (checked before SEAL is called)', () => {
  it('MISSING_KEY: relinearization and Galois keys, naming the step', () => {
    expect(
      expectFailure(
        bfv,
        'MISSING_KEY',
        [
          { op: 'square', a: 'x', out: 's' },
          { op: 'relinearize', a: 's', out: 'r' },
        ],
        () => ({
          relinKeys: undefined,
        }),
      ),
    ).toBe('step 2 (relinearize): needs relinearization keys; none were given')
    expect(
      expectFailure(bfv, 'MISSING_KEY', [{ op: 'rotateRows', a: 'x', steps: 5, out: 'r' }], () => ({
        galoisKeys: undefined,
      })),
    ).toMatch(/^step 1 \(rotateRows\): no Galois keys were given, needed for rotation by 5/)
    expect(
      expectFailure(bfv, 'MISSING_KEY', [{ op: 'sumElements', a: 'x', out: 'r' }], () => ({ galoisKeys: undefined })),
    ).toMatch(/^step 1 \(sumElements\): .*rotations by 1024, 512, .* and the column rotation/)
    // size 5 needs powers 2, 3, 4 of the secret key; createRelinKeys gives power 2 only.
    expect(
      expectFailure(
        bfv,
        'MISSING_KEY',
        [
          { op: 'square', a: 'x', out: 's' },
          { op: 'multiply', a: 's', b: 's', out: 'm' },
          { op: 'relinearize', a: 'm', out: 'r' },
        ],
        () => ({ decryptor: undefined }),
      ),
    ).toBe(
      "step 3 (relinearize): 'm' has size 5; the relinearization keys only reach size 3. Relinearize after each multiplication",
    )
  })

  it('INVALID_INPUT / PARAMS_MISMATCH: the inputs themselves', () => {
    expect(expectFailure(bfv, 'INVALID_INPUT', negate, (s) => ({ inputs: { x: encryptValues(bfv, [1], s) } }))).toBe(
      "input 'y' (a ciphertext) was not given",
    )
    expect(
      expectFailure(bfv, 'INVALID_INPUT', negate, (s) => ({
        inputs: { ...standardInputs(bfv, s), z: encodeValues(bfv, [1], s) },
      })),
    ).toBe("input 'z' is not declared by the program")
    expect(
      expectFailure(bfv, 'INVALID_INPUT', negate, (s) => ({
        inputs: { ...standardInputs(bfv, s), x: encodeValues(bfv, [1], s) },
      })),
    ).toBe("input 'x' must be a ciphertext of this thread's node-seal module")
    expect(
      expectFailure(bfv, 'INVALID_INPUT', negate, (s) => {
        const inputs = standardInputs(bfv, s)
        s.free(inputs.y as Ciphertext)
        return { inputs }
      }),
    ).toBe("input 'y' has already been deleted")
    expect(
      expectFailure(bfv, 'INVALID_INPUT', negate, (s) => ({
        inputs: { ...standardInputs(bfv, s), x: s.track(new bfv.ctx.seal.Ciphertext()) },
      })),
    ).toBe("input 'x' is an empty ciphertext (nothing was encrypted into it)")
    expect(
      expectFailure(bfv, 'PARAMS_MISMATCH', negate, (s) => ({
        inputs: { ...standardInputs(bfv, s), x: encryptValues(ckks, [1], s) },
      })),
    ).toBe("input 'x' was not made under these parameters")
    expect(
      expectFailure(ckks, 'PARAMS_MISMATCH', negate, (s) => ({
        inputs: { ...standardInputs(ckks, s), p: encodeValues(bfv, [1], s) },
      })),
    ).toBe("input 'p' is not a plaintext encoded under these parameters")
    expect(expectFailure(bfv, 'INVALID_INPUT', negate, () => ({ relinKeys: bfv.keys.galoisKeys as never }))).toBe(
      'relinKeys must be a RelinKeys',
    )
    expect(
      expectFailure(bfv, 'INVALID_INPUT', [{ op: 'multiplyPlain', a: 'x', b: 'p', out: 'r' }], (s) => ({
        inputs: { ...standardInputs(bfv, s), p: encodeValues(bfv, [0, 0], s) },
      })),
    ).toMatch(/^step 1 \(multiplyPlain\): plaintext 'p' is all zeros/)
  })

  it('LEVEL_MISMATCH: operands at different levels, and nothing left to drop', () => {
    const switched: ProgramStep = { op: 'modSwitchToNext', a: 'x', out: 'x1' }
    expect(expectFailure(bfv, 'LEVEL_MISMATCH', [switched, { op: 'add', a: 'x1', b: 'y', out: 'r' }])).toBe(
      "step 2 (add): 'x1' is at level 0 but 'y' is at level 1; modSwitch the higher one down (or set align: true)",
    )
    expect(expectFailure(bfv, 'LEVEL_MISMATCH', [switched, { op: 'modSwitchToNext', a: 'x1', out: 'r' }])).toBe(
      "step 2 (modSwitchToNext): 'x1' is already at the last level (0); there is no prime left to drop",
    )
    expect(
      expectFailure(ckks, 'LEVEL_MISMATCH', [
        { op: 'modSwitchToLast', a: 'x', out: 'x0' },
        { op: 'rescaleToNext', a: 'x0', out: 'r' },
      ]),
    ).toMatch(
      /^step 2 \(rescaleToNext\): 'x0' is already at the last level \(0\); there is no prime left to rescale by/,
    )
    expect(expectFailure(ckks, 'LEVEL_MISMATCH', [switched, { op: 'multiplyPlain', a: 'x1', b: 'p', out: 'r' }])).toBe(
      "step 2 (multiplyPlain): 'x1' is at level 1 but plaintext 'p' is at level 2; modSwitch the higher one down (or set align: true)",
    )
  })

  it('SCALE_MISMATCH: CKKS scales that differ, or a product too large for the level', () => {
    const rescaled: ProgramStep[] = [
      { op: 'multiply', a: 'x', b: 'y', out: 'm' },
      { op: 'relinearize', a: 'm', out: 'm2' },
      { op: 'rescaleToNext', a: 'm2', out: 'm3' },
      { op: 'modSwitchToNext', a: 'x', out: 'x1' },
    ]
    expect(expectFailure(ckks, 'SCALE_MISMATCH', [...rescaled, { op: 'add', a: 'm3', b: 'x1', out: 'r' }])).toMatch(
      /^step 5 \(add\): 'm3' has scale 2\^40\.0000\d+ but 'x1' has 2\^40; rescale to match, or set align: true/,
    )
    expect(
      expectFailure(ckks, 'SCALE_MISMATCH', [
        { op: 'multiply', a: 'x', b: 'y', out: 'm' },
        { op: 'add', a: 'm', b: 'x', out: 'r', align: true },
      ]),
    ).toBe("step 2 (add): 'm' has scale 2^80 but 'x' has 2^40; they are too far apart to align")
    expect(
      expectFailure(ckks, 'SCALE_MISMATCH', [
        { op: 'multiply', a: 'x', b: 'y', out: 'm' },
        { op: 'square', a: 'm', out: 'r' },
      ]),
    ).toBe(
      'step 2 (square): the product would have scale 2^160, but level 2 holds only 140 bits; rescaleToNext the operands first',
    )
    // At the last level nothing is left to rescale by: the advice says what can be done instead.
    expect(
      expectFailure(ckks, 'SCALE_MISMATCH', [
        { op: 'modSwitchToNext', a: 'x', out: 'x1' },
        { op: 'modSwitchToNext', a: 'x1', out: 'x0' },
        { op: 'square', a: 'x0', out: 'r' },
      ]),
    ).toMatch(
      /^step 3 \(square\): the product would have scale 2\^80, but level 0 \(the last level\) holds only \d+ bits and nothing is left to rescale by; use a longer modulus chain \(more primes\) or fewer multiplications in a row$/,
    )
    expect(
      expectFailure(ckks, 'SCALE_MISMATCH', [{ op: 'addPlain', a: 'x', b: 'p', out: 'r' }], (s) => ({
        inputs: { ...standardInputs(ckks, s), p: encodeCkks(ckks.ctx, [1, 2], s, { scale: 2 ** 30 }) },
      })),
    ).toMatch(/^step 1 \(addPlain\): 'x' has scale 2\^40 but plaintext 'p' has 2\^30/)
  })

  it('INVALID_PROGRAM: rotating an unrelinearized ciphertext', () => {
    expect(
      expectFailure(bfv, 'INVALID_PROGRAM', [
        { op: 'square', a: 'x', out: 's' },
        { op: 'rotateRows', a: 's', steps: 1, out: 'r' },
      ]),
    ).toBe("step 2 (rotateRows): 's' has size 3; rotateRows needs size 2, so relinearize it first")
  })

  it('NOISE_BUDGET_EXHAUSTED: names the step, or the input', () => {
    const squares: ProgramStep[] = [
      { op: 'square', a: 'x', out: 's1' },
      { op: 'relinearize', a: 's1', out: 'r1' },
      { op: 'square', a: 'r1', out: 's2' },
      { op: 'relinearize', a: 's2', out: 'r' },
    ]
    expect(expectFailure(bfv, 'NOISE_BUDGET_EXHAUSTED', squares)).toMatch(
      /^step 3 \(square\): 's2' has no noise budget left, so it would decrypt to garbage/,
    )
    withScope((scope) => {
      // Without a decryptor the run cannot see the noise; the result is garbage.
      const inputs = standardInputs(bfv, scope)
      const { outputs } = runProgram(bfv.ctx, spec(squares), { inputs, relinKeys: bfv.keys.relinKeys })
      const exhausted = scope.track(outputs.r as Ciphertext)
      expect(readValues(bfv, exhausted, scope).slice(0, 3)).not.toEqual([81n, 256n, 625n])
      expect(
        expectFailure(bfv, 'NOISE_BUDGET_EXHAUSTED', negate, (s) => ({
          inputs: { ...standardInputs(bfv, s), x: exhausted },
        })),
      ).toBe("input 'x' has no noise budget left; it no longer decrypts correctly")
    })
  })

  it('CANCELLED between steps', () => {
    expect(expectFailure(bfv, 'CANCELLED', negate, () => ({ signal: { aborted: true } }))).toBe(
      'cancelled before step 1',
    )
  })
})

describe('runProgram SEAL errors', () => {
  it('wraps what only SEAL can see, naming the step, without leaking', () => {
    // The same ciphertext under two names: x − x is transparent, which SEAL refuses.
    const message = expectFailure(
      bfv,
      'SEAL_ERROR',
      [{ op: 'sub', a: 'x', b: 'y', out: 'r' }],
      (s) => {
        const x = encryptValues(bfv, [1], s)
        return { inputs: { x, y: x, p: encodeValues(bfv, [1], s) } }
      },
      true,
    )
    expect(message).toBe('step 1 (sub): SEAL refused: the result would be transparent (not encrypted), as x − x is')
  })
})
