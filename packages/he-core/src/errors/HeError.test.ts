import { describe, expect, it } from 'vitest'
import { HeError } from './HeError.ts'
import { SealException } from './SealException.ts'

describe('HeError plain form', () => {
  it('carries the cause as text across a boundary, for logs', () => {
    const error = new HeError('INVALID_ENVELOPE', 'SEAL could not load the data', {
      cause: new SealException('std::logic_error', 'loaded SEALHeader is invalid'),
      details: { step: 1 },
    })
    const json = error.toJSON()
    expect(json).toEqual({
      code: 'INVALID_ENVELOPE',
      message: 'SEAL could not load the data',
      details: { step: 1 },
      cause: 'SealException: std::logic_error: loaded SEALHeader is invalid',
    })
    const back = HeError.fromJSON(JSON.parse(JSON.stringify(json)))
    expect(back.message).toBe('SEAL could not load the data')
    expect((back.cause as Error).message).toBe('SealException: std::logic_error: loaded SEALHeader is invalid')
  })

  it('keeps only plain details (a SEAL object or a nested record cannot cross a boundary)', () => {
    const error = new HeError('LIMIT_EXCEEDED', 'too many steps', {
      details: {
        limit: 3,
        names: ['x', 'y'],
        ok: false,
        none: null,
        seal: new SealException('e', 'w'),
        nested: { a: 1 },
      },
    })
    expect(error.toJSON().details).toEqual({ limit: 3, names: ['x', 'y'], ok: false, none: null })
  })

  it('has no cause field without a cause', () => {
    expect(new HeError('NOT_FOUND', 'no key set "k"').toJSON()).toEqual({
      code: 'NOT_FOUND',
      message: 'no key set "k"',
    })
  })
})
