import { HE_ERROR_HINTS } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { hintUnlessRepeated } from './hintUnlessRepeated.ts'

describe('hintUnlessRepeated', () => {
  it('drops a hint the message already gives (an exhausted ciphertext on Variables)', () => {
    const message =
      '\'r5\' has no noise budget left, so it would decrypt to garbage. Its wrong values are on the Functions panel ("Decrypt anyway"); use larger parameters or fewer multiplications for a result you can decrypt.'
    expect(hintUnlessRepeated(message, HE_ERROR_HINTS.NOISE_BUDGET_EXHAUSTED)).toBeUndefined()
  })

  it('keeps only the clauses the message does not say', () => {
    expect(hintUnlessRepeated('the noise budget is gone after step 3', HE_ERROR_HINTS.NOISE_BUDGET_EXHAUSTED)).toBe(
      'Use larger parameters or fewer multiplications.',
    )
  })

  it('keeps a hint that adds something', () => {
    expect(
      hintUnlessRepeated("Step 2 (Relinearize): there is no value called 'r1' yet", HE_ERROR_HINTS.INVALID_PROGRAM),
    ).toBe('The HE program is not valid; fix the named step.')
    expect(hintUnlessRepeated('anything', undefined)).toBeUndefined()
  })
})
