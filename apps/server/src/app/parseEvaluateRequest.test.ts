import { HeError, type ProgramInput, parseParams } from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { parseEvaluateRequest } from './parseEvaluateRequest.ts'

const params = { scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } } as const
const limits = { MAX_POLY_DEGREE: 8192, MAX_PROGRAM_STEPS: 4 }

/** multiply → relinearize → rotate: relinearization keys and Galois step 1. */
const program: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [
    { op: 'multiply', a: 'x', b: 'x', out: 'xx' },
    { op: 'relinearize', a: 'xx', out: 'r' },
    { op: 'rotateRows', a: 'r', steps: 1, out: 'out' },
  ],
  outputs: ['out'],
}

/** The HeError `work` throws. */
function refusal(work: () => unknown): HeError {
  try {
    work()
  } catch (error) {
    if (error instanceof HeError) return error
    throw error
  }
  throw new HeError('INTERNAL', 'expected a refusal')
}

describe('parseEvaluateRequest', () => {
  it('parses the parameters and analyzes the program once, naming the key set from the body or the URL', () => {
    const fromBody = parseEvaluateRequest(
      encodeEvaluateRequest({ params, program, inputs: {}, keySet: 'k' }),
      'k',
      limits,
    )
    expect(fromBody.params).toEqual(parseParams(params))
    expect(fromBody.keySet).toBe('k')
    expect(fromBody.analysis.needsRelinKeys).toBe(true)
    expect([...fromBody.analysis.keyGenSteps]).toEqual([1])
    expect(fromBody.envelopeKeySetIds.size).toBe(0)
    const fromUrl = parseEvaluateRequest(encodeEvaluateRequest({ params, program, inputs: {} }), 'u', limits)
    expect(fromUrl.keySet).toBe('u')
  })

  it('refuses a keySet the URL and the body disagree on (INVALID_INPUT, 400)', () => {
    const error = refusal(() =>
      parseEvaluateRequest(encodeEvaluateRequest({ params, program, inputs: {}, keySet: 'a' }), 'b', limits),
    )
    expect(error.code).toBe('INVALID_INPUT')
    expect(error.httpStatus).toBe(400)
  })

  it('refuses parameters above MAX_POLY_DEGREE and programs above MAX_PROGRAM_STEPS (LIMIT_EXCEEDED)', () => {
    const body = encodeEvaluateRequest({ params, program, inputs: {} })
    const degree = refusal(() => parseEvaluateRequest(body, undefined, { ...limits, MAX_POLY_DEGREE: 2048 }))
    expect(degree.code).toBe('LIMIT_EXCEEDED')
    expect(degree.details).toMatchObject({ limit: 2048 })
    const steps = refusal(() => parseEvaluateRequest(body, undefined, { ...limits, MAX_PROGRAM_STEPS: 2 }))
    expect(steps.code).toBe('LIMIT_EXCEEDED')
  })
})
