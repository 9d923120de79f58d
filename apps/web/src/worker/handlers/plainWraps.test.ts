import { runProgramPlain } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { INTEGER_MODULUS, plainWraps } from './plainWraps.ts'

describe('plainWraps', () => {
  const program = {
    version: 1,
    inputs: [{ name: 'x', kind: 'ciphertext' }],
    steps: [{ op: 'multiply', a: 'x', b: 'x', out: 'xx' }],
    outputs: ['xx'],
  }
  const target = (plainModulus: bigint) => ({ scheme: 'bfv' as const, polyModulusDegree: 4096, plainModulus })
  const t = 1032193n

  it('finds the slots whose square passed (t − 1)/2, with their integer values', () => {
    const inputs = { x: [1000, 2000, 3, -700] }
    const modT = runProgramPlain(program, target(t), inputs).xx as bigint[]
    const integers = runProgramPlain(program, target(INTEGER_MODULUS), inputs).xx as bigint[]
    expect(integers.slice(0, 4)).toEqual([1000000n, 4000000n, 9n, 490000n])
    expect(plainWraps(modT, integers)).toEqual({ slots: 2, exact: [1000000n, 4000000n] })
  })

  it('says nothing when every result fits', () => {
    const inputs = { x: [700, -700, 3] }
    const modT = runProgramPlain(program, target(t), inputs).xx as bigint[]
    const integers = runProgramPlain(program, target(INTEGER_MODULUS), inputs).xx as bigint[]
    expect(plainWraps(modT, integers)).toBeUndefined()
  })

  it('names at most four slots but counts them all', () => {
    const wraps = plainWraps([1n, 2n, 3n, 4n, 5n, 6n], [10n, 20n, 30n, 40n, 50n, 6n])
    expect(wraps).toEqual({ slots: 5, exact: [10n, 20n, 30n, 40n] })
  })
})
