import { describe, expect, it } from 'vitest'
import { plainWordsFirst } from './plainWordsFirst.ts'

describe('plainWordsFirst', () => {
  it('puts the reason first and the field, as the form labels it, second', () => {
    expect(plainWordsFirst('coeffModulus[1]: "2x" is not a whole number')).toBe(
      '"2x" is not a whole number (Coefficient modulus, prime 2)',
    )
    expect(plainWordsFirst('plainModulus.value: 7 is not a prime')).toBe('7 is not a prime (Plain modulus t)')
    expect(plainWordsFirst('scaleBits: scaleBits is at most 60')).toBe('The scale is at most 2^60 (Scale)')
  })

  it('names ops as the step menu does', () => {
    expect(plainWordsFirst('use rescaleToNext first, then rotateRows')).toBe(
      'use “Rescale to next level” first, then “Rotate rows”',
    )
  })

  it('leaves a message without a field name as it is', () => {
    expect(plainWordsFirst('SEAL rejected these parameters')).toBe('SEAL rejected these parameters')
  })
})
