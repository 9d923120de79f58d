import { describe, expect, it } from 'vitest'
import { checkDraft, DEFAULT_PARAMS_DRAFT, draftFieldOf, draftOf, draftProblems, draftToInput } from './paramsDraft.ts'

const custom = (coeffBits: string) => ({ ...DEFAULT_PARAMS_DRAFT, coeffMode: 'custom' as const, coeffBits })

describe('paramsDraft', () => {
  it('reads coefficient-modulus bit sizes separated by commas, spaces or both', () => {
    for (const text of ['40 20 40', '40, 20, 40', ' 40,20  40 ', '40;20;40']) {
      expect(draftToInput(custom(text))).toMatchObject({ coeffModulus: [40, 20, 40] })
    }
  })

  it('names the field and the value it cannot read', () => {
    expect(draftToInput(custom('  '))).toEqual({
      field: 'coeffModulus',
      message: 'coeffModulus: enter the prime bit sizes, e.g. 36, 36, 37',
    })
    expect(draftToInput(custom('40 2x 40'))).toEqual({
      field: 'coeffModulus[1]',
      message: 'coeffModulus[1]: "2x" is not a whole number',
    })
    expect(draftToInput({ ...DEFAULT_PARAMS_DRAFT, plainBits: 'twenty' })).toMatchObject({
      field: 'plainModulus.batchingBits',
    })
    expect(draftToInput({ ...DEFAULT_PARAMS_DRAFT, scheme: 'ckks', scaleBits: '-3' })).toMatchObject({
      field: 'scaleBits',
    })
  })

  it("checks a draft with he-core's rules and maps the failing field to its form control", () => {
    const tooBig = checkDraft(custom('60, 60, 60'))
    expect(tooBig).toMatchObject({ ok: false, message: expect.stringMatching(/allows at most 109/) })
    if (!tooBig.ok) expect(draftFieldOf(tooBig.field)).toBe('coeffBits')
    const fine = checkDraft(custom('36 36 37'))
    expect(fine.ok && fine.facts.slotCount).toBe(4096)
    expect(draftFieldOf('plainModulus.value')).toBe('plainBits')
    expect(draftFieldOf('something else')).toBe('params')
  })

  it('turns parameters back into the form that describes them', () => {
    const draft = draftOf({ scheme: 'bgv', polyModulusDegree: 8192, plainModulus: { value: 65537 } })
    expect(draft).toMatchObject({ scheme: 'bgv', polyModulusDegree: 8192, coeffMode: 'default' })
    expect(draft).toMatchObject({ plainMode: 'value', plainValue: '65537' })
    expect(draftToInput(draft)).toEqual({
      scheme: 'bgv',
      polyModulusDegree: 8192,
      security: 'tc128',
      plainModulus: { value: 65537 },
    })
  })

  it('lists every broken rule at once: a bad coefficient modulus does not hide a bad plain modulus', () => {
    const problems = draftProblems({ ...custom('40 2x 40'), plainBits: 'twenty' })
    expect(problems.map((p) => draftFieldOf(p.field))).toEqual(['coeffBits', 'plainBits'])
    expect(problems[1]?.message).toMatch(/"twenty" is not a whole number/)
    expect(draftProblems(custom('36 36 37'))).toEqual([])
  })
})
