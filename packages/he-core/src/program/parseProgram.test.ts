import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import type { ProgramLimits } from './ProgramLimits.ts'
import type { ProgramInput } from './ProgramSpec.ts'
import { parseProgram } from './parseProgram.ts'

const INPUTS: ProgramInput['inputs'] = [
  { name: 'x', kind: 'ciphertext' },
  { name: 'y', kind: 'ciphertext' },
  { name: 'p', kind: 'plaintext' },
]

function program(steps: unknown[], outputs: string[] = ['r'], inputs: unknown[] = INPUTS): unknown {
  return { version: 1, inputs, steps, outputs }
}

function failure(input: unknown, limits: Partial<ProgramLimits> = {}): HeError {
  try {
    parseProgram(input, { limits })
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  expect.unreachable('expected parseProgram to fail')
}

function reason(input: unknown, limits: Partial<ProgramLimits> = {}): string {
  const error = failure(input, limits)
  expect(error.code).toBe('INVALID_PROGRAM')
  return error.message
}

describe('parseProgram', () => {
  it('accepts a valid program and infers the kind of every name', () => {
    const {
      program: parsed,
      kinds,
      definedBy,
    } = parseProgram(
      program(
        [
          { op: 'multiply', a: 'x', b: 'y', out: 'm' },
          { op: 'relinearize', a: 'm', out: 'r1' },
          { op: 'addPlain', a: 'r1', b: 'p', out: 'r', align: true },
          { op: 'modSwitchToNext', a: 'p', out: 'p1' },
        ],
        ['r', 'p1'],
      ),
    )
    expect(parsed.steps).toHaveLength(4)
    expect(Object.fromEntries(kinds)).toEqual({
      x: 'ciphertext',
      y: 'ciphertext',
      p: 'plaintext',
      m: 'ciphertext',
      r1: 'ciphertext',
      r: 'ciphertext',
      p1: 'plaintext',
    })
    expect(definedBy.get('x')).toBe(-1)
    expect(definedBy.get('r')).toBe(2)
  })

  it('names the step and the operand that is not defined before it', () => {
    expect(
      reason(
        program([
          { op: 'add', a: 'x', b: 'y', out: 's' },
          { op: 'negate', a: 's', out: 't' },
          { op: 'multiply', a: 'x', b: 'z', out: 'r' },
        ]),
      ),
    ).toBe("step 3 (multiply): operand 'z' is not defined before this step")
    // Use before definition, and a step reading its own output (a cycle), are the same rule.
    expect(
      reason(
        program([
          { op: 'negate', a: 'later', out: 'r' },
          { op: 'negate', a: 'x', out: 'later' },
        ]),
      ),
    ).toBe("step 1 (negate): operand 'later' is not defined before this step")
    expect(reason(program([{ op: 'negate', a: 'r', out: 'r' }]))).toBe(
      "step 1 (negate): operand 'r' is not defined before this step",
    )
    const error = failure(program([{ op: 'square', a: 'q', out: 'r' }]))
    expect(error.details).toMatchObject({ stepIndex: 0, op: 'square' })
  })

  it('requires every out to be a new name (SSA)', () => {
    expect(reason(program([{ op: 'negate', a: 'x', out: 'y' }]))).toBe(
      "step 1 (negate): out 'y' is already defined as an input; every step defines a new name",
    )
    expect(
      reason(
        program([
          { op: 'negate', a: 'x', out: 'r' },
          { op: 'square', a: 'x', out: 'r' },
        ]),
      ),
    ).toBe("step 2 (square): out 'r' is already defined by step 1; every step defines a new name")
  })

  it('checks operand kinds and suggests the plain variant', () => {
    expect(reason(program([{ op: 'add', a: 'x', b: 'p', out: 'r' }]))).toBe(
      "step 1 (add): operand b = 'p' is a plaintext; add needs a ciphertext here (use addPlain)",
    )
    expect(reason(program([{ op: 'multiplyPlain', a: 'x', b: 'y', out: 'r' }]))).toMatch(
      /operand b = 'y' is a ciphertext; multiplyPlain needs a plaintext here/,
    )
    expect(reason(program([{ op: 'rotateRows', a: 'p', steps: 1, out: 'r' }]))).toMatch(
      /operand a = 'p' is a plaintext; rotateRows needs a ciphertext/,
    )
    expect(reason(program([{ op: 'innerProduct', a: 'x', b: 'p', out: 'r' }]))).toMatch(/use innerProductPlain/)
    // Mod switching takes either kind and keeps it.
    expect(parseProgram(program([{ op: 'modSwitchToLast', a: 'p', out: 'r' }])).kinds.get('r')).toBe('plaintext')
  })

  it('refuses a − a (a transparent ciphertext)', () => {
    expect(reason(program([{ op: 'sub', a: 'x', b: 'x', out: 'r' }]))).toMatch(
      /^step 1 \(sub\): 'x' − 'x' is an encryption of zero/,
    )
  })

  it('checks inputs and outputs', () => {
    expect(reason(program([], ['x'], [...INPUTS, { name: 'x', kind: 'plaintext' }]))).toBe(
      "inputs[3]: input 'x' is declared twice",
    )
    expect(reason(program([{ op: 'negate', a: 'x', out: 'r' }], ['r', 'nope']))).toBe(
      "outputs[1]: 'nope' is not defined by any input or step",
    )
    expect(reason(program([{ op: 'negate', a: 'x', out: 'r' }], ['r', 'r']))).toBe("outputs[1]: 'r' is listed twice")
    expect(reason(program([], []))).toBe('outputs: a program needs at least one output')
    // An input may be an output (runProgram hands back a copy).
    expect(parseProgram(program([], ['x'])).program.outputs).toEqual(['x'])
  })

  it('reports shape errors with the step, op and field', () => {
    expect(reason('not a program')).toMatch(/^program: /)
    expect(reason({ ...(program([]) as object), version: 2 })).toMatch(/^version: /)
    expect(reason({ ...(program([], ['x']) as object), extra: true })).toMatch(/Unrecognized key/)
    expect(reason(program([{ op: 'frobnicate', a: 'x', out: 'r' }]))).toMatch(
      /^step 1: unknown op 'frobnicate'; use one of add, sub, negate, multiply/,
    )
    expect(reason(program([{ a: 'x', out: 'r' }]))).toMatch(/^step 1: no op; use one of/)
    expect(reason(program([{ op: 'add', a: 'x', out: 'r' }]))).toMatch(/^step 1 \(add\): b: /)
    expect(reason(program([{ op: 'negate', a: 'x', out: 'r', b: 'y' }]))).toMatch(
      /^step 1 \(negate\): .*Unrecognized key/,
    )
    expect(reason(program([{ op: 'rotateRows', a: 'x', steps: 1.5, out: 'r' }]))).toMatch(
      /^step 1 \(rotateRows\): steps: /,
    )
    expect(reason(program([{ op: 'exponentiate', a: 'x', exponent: 0, out: 'r' }]))).toMatch(
      /^step 1 \(exponentiate\): exponent: /,
    )
    expect(reason(program([{ op: 'negate', a: 'x', out: '1bad' }]))).toMatch(
      /^step 1 \(negate\): out: names start with a letter/,
    )
    expect(reason(program([], ['x'], [{ name: 'x', kind: 'secret' }]))).toMatch(/^inputs\.0\.kind: /)
    expect(
      reason(program([{ op: 'negate', a: 'x', out: 'r' }], ['r'], [{ name: 'x', kind: 'ciphertext' }, 5])),
    ).toMatch(/^inputs\.1: /)
  })

  it('enforces the limits with LIMIT_EXCEEDED', () => {
    const limit = (input: unknown, limits: Partial<ProgramLimits>) => {
      const error = failure(input, limits)
      expect(error.code).toBe('LIMIT_EXCEEDED')
      return error.message
    }
    const negations = Array.from({ length: 5 }, (_, i) => ({ op: 'negate', a: 'x', out: `n${i}` }))
    expect(limit(program(negations, ['n0']), { maxSteps: 4 })).toBe('program has 5 steps; the limit is 4')
    expect(limit(program([], ['x']), { maxInputs: 2 })).toBe('program has 3 inputs; the limit is 2')
    expect(limit(program(negations, ['n0', 'n1']), { maxOutputs: 1 })).toBe('program has 2 outputs; the limit is 1')
    expect(limit(program([{ op: 'exponentiate', a: 'x', exponent: 65, out: 'r' }]), {})).toBe(
      'step 1 (exponentiate): exponent 65 exceeds the limit 64',
    )
    expect(limit(program([{ op: 'rotateRows', a: 'x', steps: -9, out: 'r' }]), { maxRotationSteps: 8 })).toBe(
      'step 1 (rotateRows): rotation by -9 exceeds the limit |steps| ≤ 8',
    )
    const steps = Array.from({ length: 257 }, (_, i) => ({ op: 'negate', a: 'x', out: `n${i}` }))
    expect(limit(program(steps, ['n0']), {})).toBe('program has 257 steps; the limit is 256')
  })
})
