import { describe, expect, it } from 'vitest'
import { defaultOperands, type Operand } from './defaultOperands.ts'
import { step } from './testWorkspace.ts'

const ct = (name: string): Operand => ({ name, kind: 'ciphertext' })
const pt = (name: string): Operand => ({ name, kind: 'plaintext' })

describe('defaultOperands', () => {
  it('a second multiply reads the relinearized product, not the product before relinearization', () => {
    const pipeline = [step('multiply', 'x', 'r1', { b: 'x' }), step('relinearize', 'r1', 'r2')]
    expect(defaultOperands({ pipeline }, [ct('x'), ct('r1'), ct('r2')], 'multiply')).toEqual({ a: 'x', b: 'r2' })
    expect(defaultOperands({ pipeline }, [ct('x'), ct('r1'), ct('r2')], 'square')).toMatchObject({ a: 'r2' })
  })

  it('skips rescaled and mod-switched values and results whose step failed', () => {
    const pipeline = [
      step('multiply', 'x', 'r1', { b: 'y' }),
      step('relinearize', 'r1', 'r2'),
      step('rescaleToNext', 'r2', 'r3'),
      step('square', 'r3', 'r4', { last: { status: 'failed', code: 'NOISE_BUDGET_EXHAUSTED', message: 'x' } }),
    ]
    const available = [ct('x'), ct('y'), ct('r1'), ct('r2'), ct('r3'), ct('r4')]
    expect(defaultOperands({ pipeline }, available, 'add')).toEqual({ a: 'y', b: 'r3' })
    expect(defaultOperands({ pipeline }, available, 'rotateVector')).toMatchObject({ a: 'r3' })
  })

  it('a plaintext op reads the newest useful ciphertext and the newest plaintext; two variables read as x × y', () => {
    expect(defaultOperands({ pipeline: [] }, [ct('x'), pt('w'), ct('y')], 'multiplyPlain')).toEqual({ a: 'y', b: 'w' })
    expect(defaultOperands({ pipeline: [] }, [ct('x'), ct('y')], 'multiply')).toEqual({ a: 'x', b: 'y' })
    expect(defaultOperands({ pipeline: [] }, [ct('x')], 'multiply')).toEqual({ a: 'x', b: 'x' })
    expect(defaultOperands({ pipeline: [] }, [], 'negate')).toEqual({ a: '', b: '' })
  })
})
