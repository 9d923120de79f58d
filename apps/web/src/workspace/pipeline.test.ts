import { describe, expect, it } from 'vitest'
import { rawIdentifiers } from '../ui/rawIdentifiers.ts'
import { checkPipeline, hasOperandB, hasRotationSteps, isProgramOp, toProgramStep } from './pipeline.ts'
import { bfvWorkspace, step, variable } from './testWorkspace.ts'
import type { KeyEntry } from './workspaceState.ts'

const key = (kind: KeyEntry['kind'], steps?: number[]): KeyEntry => ({
  kind,
  bytes: 1,
  seeded: false,
  source: 'generated',
  createdAt: 0,
  ...(steps ? { steps } : {}),
})

describe('toProgramStep', () => {
  it("keeps only the fields of the step's op", () => {
    expect(toProgramStep(step('rotateRows', 'x', 'r', { b: 'y', steps: -2, exponent: 5 }), 0)).toEqual({
      op: 'rotateRows',
      a: 'x',
      steps: -2,
      out: 'r',
    })
    expect(toProgramStep(step('multiply', 'x', 'r', { b: 'y', align: true }), 0)).toMatchObject({ b: 'y' })
    expect(isProgramOp('multiply') && hasOperandB('multiply') && hasRotationSteps('rotateVector')).toBe(true)
    expect(hasOperandB('negate') || isProgramOp('toString')).toBe(false)
  })

  it('names the step, the op and the field that is wrong', () => {
    expect(() => toProgramStep(step('frobnicate', 'x', 'r'), 2)).toThrow("Step 3: unknown operation 'frobnicate'")
    expect(() => toProgramStep(step('negate', 'x', '9r'), 0)).toThrow(/^Step 1 \(negate\): result name: /)
    // An operand not chosen yet is asked for, not refused as a malformed name.
    expect(() => toProgramStep(step('multiplyPlain', 'x', 'r', { b: '' }), 4)).toThrow(
      'Step 5 (multiplyPlain): choose operand b (a plaintext: make one on the Variables panel)',
    )
  })
})

describe('checkPipeline', () => {
  const variables = [variable('x'), variable('y'), variable('p', { kind: 'plaintext' })]

  it('is quiet without parameters or steps', () => {
    expect(checkPipeline(bfvWorkspace({ applied: undefined, pipeline: [step('negate', 'x', 'r')] }))).toEqual({
      problems: [],
    })
    expect(checkPipeline(bfvWorkspace())).toEqual({ problems: [] })
  })

  it('builds the program: inputs are the variables read, outputs every result', () => {
    const check = checkPipeline(
      bfvWorkspace({
        variables,
        keys: { relinKeys: key('relinKeys') },
        pipeline: [step('multiply', 'x', 'r1', { b: 'y' }), step('relinearize', 'r1', 'r2')],
      }),
    )
    expect(check.problems).toEqual([])
    expect(check.program?.inputs).toEqual([
      { name: 'x', kind: 'ciphertext' },
      { name: 'y', kind: 'ciphertext' },
    ])
    expect(check.program?.outputs).toEqual(['r1', 'r2'])
    expect(check.analysis?.needsRelinKeys).toBe(true)
  })

  it('stops at the first step that reads an unknown name or overwrites a variable', () => {
    const unknown = checkPipeline(bfvWorkspace({ variables, pipeline: [step('negate', 'nope', 'r')] }))
    expect(unknown.problems).toEqual([
      {
        stepIndex: 0,
        code: 'NOT_FOUND',
        message: "Step 1 (Negate) reads 'nope', which is neither a variable nor the result of an earlier step.",
      },
    ])
    const overwrite = checkPipeline(bfvWorkspace({ variables, pipeline: [step('negate', 'x', 'y')] }))
    expect(overwrite.problems[0]).toMatchObject({ stepIndex: 0, code: 'INVALID_PROGRAM' })
    expect(overwrite.problems[0]?.message).toMatch(/would overwrite your variable 'y'/)
  })

  it('names the keys a step needs and does not have', () => {
    const check = checkPipeline(
      bfvWorkspace({
        variables,
        keys: { galoisKeys: key('galoisKeys', [1]) },
        pipeline: [step('rotateRows', 'x', 'r1', { steps: 1 }), step('rotateRows', 'r1', 'r2', { steps: 3 })],
      }),
    )
    expect(check.problems).toHaveLength(1)
    expect(check.problems[0]).toMatchObject({ stepIndex: 1, code: 'MISSING_KEY' })
  })

  it("says every problem in the step menu's and the form's words, never an op id", () => {
    const check = checkPipeline(
      bfvWorkspace({
        variables,
        pipeline: [
          step('rotateRows', 'x', 'r1'),
          step('rotateColumns', 'r1', 'r2'),
          step('square', 'r2', 'r3'),
          step('multiplyPlain', 'r3', 'r4', { b: 'p' }),
        ],
      }),
    )
    expect(check.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^Step 1 \(Rotate rows\): /),
      expect.stringMatching(/^Step 2 \(Rotate columns \(swap rows\)\): /),
    ])
    const wrongScheme = checkPipeline(bfvWorkspace({ variables, pipeline: [step('rescaleToNext', 'x', 'r1')] }))
    const unknown = checkPipeline(bfvWorkspace({ variables, pipeline: [step('sumElements', 'nope', 'r1')] }))
    for (const problem of [...check.problems, ...wrongScheme.problems, ...unknown.problems]) {
      expect(rawIdentifiers(problem.message), problem.message).toEqual([])
    }
    expect(wrongScheme.problems[0]?.message).toMatch(
      /“Rescale to next level” needs CKKS.*use “Mod-switch to next level”/,
    )
  })
})
