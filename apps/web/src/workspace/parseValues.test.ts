import { describe, expect, it } from 'vitest'
import { ckksValueBound, formatValue, parseValues } from './parseValues.ts'

const bfv = { scheme: 'bfv', slotCount: 8, plainModulus: 17n } as const
const ckks = { scheme: 'ckks', slotCount: 4 } as const

describe('parseValues', () => {
  it('reads commas, spaces, semicolons and new lines alike', () => {
    expect(parseValues('1, 2 3;4\n-5', bfv)).toEqual({ ok: true, values: [1n, 2n, 3n, 4n, -5n] })
    expect(parseValues(' 1.5  -2e-3 ', ckks)).toEqual({ ok: true, values: [1.5, -0.002] })
  })

  it('refuses what SEAL would silently wrap or cannot hold, naming the value and the limit', () => {
    expect(parseValues('', bfv)).toEqual({ ok: false, message: 'Type at least one number, e.g. 1, 2, 3' })
    expect(parseValues('1 2 3 4 5', ckks)).toEqual({
      ok: false,
      message: '5 values do not fit the 4 slots of these parameters',
    })
    expect(parseValues('8, 9', bfv)).toEqual({
      ok: false,
      message: 'Value 2 (9) is out of range: with t = 17 values must lie between -8 and 8',
    })
    expect(parseValues('1, 2.5', bfv)).toMatchObject({ ok: false, message: expect.stringMatching(/use CKKS/) })
    expect(parseValues('1, abc', ckks)).toEqual({ ok: false, message: 'Value 2 ("abc") is not a number' })
  })

  it('CKKS: refuses values too large to decrypt right at the last level (1e15 was accepted)', () => {
    const bound = ckksValueBound({ coeffModulusBits: [60, 40, 40, 60], scaleBits: 40 })
    expect(bound).toEqual({ max: 2 ** 19, firstPrimeBits: 60, scaleBits: 40 })
    const limits = { ...ckks, ckksBound: bound }
    expect(parseValues('1.5, -524287.9', limits)).toEqual({ ok: true, values: [1.5, -524287.9] })
    expect(parseValues('1, 1e15', limits)).toEqual({
      ok: false,
      message:
        'Value 2 (1e15) is too large: with a 60-bit first prime and a scale of 2^40, CKKS values must lie strictly between −524288 and 524288 to decrypt right after rescaling (a larger first prime or a smaller scale allows more)',
    })
    expect(parseValues('-524288', limits)).toMatchObject({ ok: false })
    expect(ckksValueBound({ coeffModulusBits: [60, 40], scaleBits: undefined })).toBeUndefined()
  })

  it('formats decoded values: integers as is, reals to 4 decimals, never -0', () => {
    expect(formatValue(12n)).toBe('12')
    expect(formatValue(3)).toBe('3')
    expect(formatValue(1.23456789)).toBe('1.2346')
    expect(formatValue(-0.00001)).toBe('0')
  })
})
