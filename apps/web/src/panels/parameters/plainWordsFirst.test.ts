import { describe, expect, it } from 'vitest'
import { plainWordsFirst } from './plainWordsFirst.ts'

describe('plainWordsFirst', () => {
  it('puts the reason first and the field name second', () => {
    expect(plainWordsFirst('coeffModulus[1]: "2x" is not a whole number')).toBe(
      '"2x" is not a whole number (coeffModulus[1])',
    )
    expect(plainWordsFirst('plainModulus.value: 7 is not a prime')).toBe('7 is not a prime (plainModulus.value)')
  })

  it('leaves a message without a field name as it is', () => {
    expect(plainWordsFirst('SEAL rejected these parameters')).toBe('SEAL rejected these parameters')
  })
})
