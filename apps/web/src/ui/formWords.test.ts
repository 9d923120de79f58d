import {
  analyzeProgram,
  HeError,
  missingProgramKeys,
  type ParamsNeeds,
  PROGRAM_OPS,
  type ProgramOp,
  type ProgramStep,
  parseParams,
  suggestParams,
} from '@sealbox/he-core'
import { noiseBudgetStopMessage } from '@sealbox/he-core/codegen'
import { describe, expect, it } from 'vitest'
import { opLabel } from '../panels/functions/opGroups.ts'
import { assistantProblem, assistantReason } from '../panels/parameters/assistantWords.ts'
import { plainWordsFirst } from '../panels/parameters/plainWordsFirst.ts'
import { DEFAULT_PARAMS_DRAFT, type DraftProblem, draftProblems, type ParamsDraft } from '../workspace/paramsDraft.ts'
import { formWords } from './formWords.ts'
import { rawIdentifiers } from './rawIdentifiers.ts'

describe('formWords', () => {
  it('names steps, ops, fields and security levels as the form and the step menu do', () => {
    expect(formWords('step 2 (rotateColumns): the Galois keys given have no key for the column rotation')).toBe(
      'Step 2 (Rotate columns (swap rows)): the Galois keys given have no key for the column rotation',
    )
    expect(formWords('Step 3 (square): needs relinearization keys; none were given')).toBe(
      'Step 3 (Square): needs relinearization keys; none were given',
    )
    expect(
      formWords(
        'step 1 (exponentiate): exponentiate needs BFV/BGV, but these parameters are CKKS (CKKS has no exponentiate; use square/multiply with relinearize and rescaleToNext)',
      ),
    ).toBe(
      'Step 1 (Exponentiate): “Exponentiate” needs BFV/BGV, but these parameters are CKKS (CKKS has no exponentiate; use “Square”/“Multiply” with “Relinearize” and “Rescale to next level”)',
    )
    expect(formWords('coeff modulus totals 122 bits; n=4096 at tc128 allows at most 109 (coeffModulus)')).toBe(
      'coefficient modulus totals 122 bits; n = 4096 at 128-bit security allows at most 109 (Coefficient modulus)',
    )
    expect(
      formWords('it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications'),
    ).toBe('it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications')
  })
})

/** A bad draft: the default form with `change`. */
function draft(change: Partial<ParamsDraft>): DraftProblem[] {
  return draftProblems({ ...DEFAULT_PARAMS_DRAFT, ...change })
}

function heMessage(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof HeError) return error.message
    throw error
  }
  throw new Error('expected an HeError')
}

describe('what the sandbox shows carries no internal identifiers', () => {
  it('the Parameters form: every broken rule, plain words first', () => {
    const problems = [
      ...draft({ polyModulusDegree: 4096, coeffMode: 'custom', coeffBits: '61, 61' }),
      ...draft({ polyModulusDegree: 4096, coeffMode: 'custom', coeffBits: '60, 60, 60' }),
      ...draft({ plainMode: 'value', plainValue: '7' }),
      ...draft({ plainBits: 'abc' }),
      ...draft({ scheme: 'ckks', coeffMode: 'custom', coeffBits: '60, 40, 60', scaleBits: '61' }),
      ...draft({
        scheme: 'ckks',
        polyModulusDegree: 8192,
        coeffMode: 'custom',
        coeffBits: '30, 30, 30',
        scaleBits: '40',
      }),
    ]
    expect(problems.length).toBeGreaterThanOrEqual(6)
    for (const problem of problems)
      expect(rawIdentifiers(plainWordsFirst(problem.message)), problem.message).toEqual([])
  })

  it('the assistant: its problems and its reasons', () => {
    const needs: ParamsNeeds[] = [
      { depth: 30, slots: 100_000, plainBits: 20, security: 'tc128' },
      { depth: Number.NaN, slots: 8, plainBits: 70, security: 'tc192' },
      { depth: 2, slots: 8, precisionBits: 60, security: 'tc256' },
    ]
    for (const need of needs) {
      const result = suggestParams(need)
      expect(result.ok).toBe(false)
      if (!result.ok)
        for (const problem of result.problems) expect(rawIdentifiers(assistantProblem(problem))).toEqual([])
    }
    for (const need of [
      { depth: 2, slots: 8, plainBits: 20, security: 'tc128' as const },
      { depth: 3, slots: 8, precisionBits: 20, security: 'tc192' as const },
    ]) {
      const result = suggestParams(need)
      if (!result.ok) throw new Error('expected a suggestion')
      for (const reason of result.reasons) expect(rawIdentifiers(assistantReason(reason)), reason).toEqual([])
    }
    const problem = suggestParams(needs[0] as ParamsNeeds)
    if (problem.ok) throw new Error('expected problems')
    expect(problem.problems.map(assistantProblem)).toContainEqual(expect.stringMatching(/\(Values per ciphertext\)$/))
  })

  it("every op's refusal on the other scheme, and every missing key, as the steps show them", () => {
    const bfv = parseParams({ scheme: 'bfv', polyModulusDegree: 4096 })
    const ckks = parseParams({ scheme: 'ckks', polyModulusDegree: 8192 })
    for (const [op, info] of Object.entries(PROGRAM_OPS)) {
      const step = {
        op,
        a: 'x',
        ...(info.operands.some((o) => o.field === 'b') ? { b: op.endsWith('Plain') ? 'p' : 'y' } : {}),
        ...(op === 'rotateRows' || op === 'rotateVector' ? { steps: 1 } : {}),
        ...(op === 'exponentiate' ? { exponent: 3 } : {}),
        out: 'r',
      } as ProgramStep
      const program = {
        version: 1 as const,
        inputs: [
          { name: 'x', kind: 'ciphertext' as const },
          { name: 'y', kind: 'ciphertext' as const },
          { name: 'p', kind: 'plaintext' as const },
        ],
        steps: [step],
        outputs: ['r'],
      }
      for (const params of [bfv, ckks]) {
        if (!info.schemes.includes(params.scheme)) {
          const message = heMessage(() => analyzeProgram(program, params))
          expect(rawIdentifiers(formWords(message)), message).toEqual([])
          continue
        }
        for (const missing of missingProgramKeys(analyzeProgram(program, params), {})) {
          expect(rawIdentifiers(formWords(missing.message)), missing.message).toEqual([])
        }
      }
    }
  })

  it("an exported program's stop sentence: the step menu's words already, for every op", () => {
    for (const [index, op] of (Object.keys(PROGRAM_OPS) as ProgramOp[]).entries()) {
      const sentence = noiseBudgetStopMessage({ op, out: 'r' }, index)
      expect(sentence.startsWith(`Step ${index + 1} (${opLabel(op)}): `), sentence).toBe(true)
      expect(formWords(sentence)).toBe(sentence)
      expect(rawIdentifiers(sentence), sentence).toEqual([])
    }
  })

  it("names the align field as the step's checkbox reads", () => {
    expect(
      formWords(
        "step 3 (add): 'a' has scale 40 but 'b' has 80; rescale to match, or set align: true if they differ only by rescaling round-off",
      ),
    ).toBe(
      "Step 3 (Add): 'a' has scale 40 but 'b' has 80; rescale to match, or tick “align levels” on the step if they differ only by rescaling round-off",
    )
    expect(
      formWords(
        "step 2 (add): 'a' is at level 2 but 'b' is at level 1; modSwitch the higher one down (or set align: true)",
      ),
    ).toBe(
      "Step 2 (Add): 'a' is at level 2 but 'b' is at level 1; bring the higher one down with “Mod-switch to next level” (or tick “align levels” on the step)",
    )
  })

  it('finds what it is for', () => {
    expect(
      rawIdentifiers(
        'Step 4 (rotateRows): see (square) at tc128 — Coeff modulus (slots); modSwitch or set align: true',
      ),
    ).toEqual([
      'rotateRows',
      '(rotateRows)',
      '(square)',
      'tc128',
      'Coeff modulus',
      'align: true',
      'modSwitch',
      '(slots)',
    ])
  })
})
