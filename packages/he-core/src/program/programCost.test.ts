import { describe, expect, it } from 'vitest'
import { parseParams } from '../params/parseParams.ts'
import { analyzeProgram } from './analyzeProgram.ts'
import { parseProgram } from './parseProgram.ts'
import { costScale, programCost } from './programCost.ts'

function program(steps: unknown[], outputs = ['r']) {
  return parseProgram({
    version: 1,
    inputs: [
      { name: 'x', kind: 'ciphertext' },
      { name: 'y', kind: 'ciphertext' },
      { name: 'p', kind: 'plaintext' },
    ],
    steps,
    outputs,
  }).program
}

const stepUnits = (cost: { steps: { units: number }[] }, index: number) => cost.steps[index]?.units ?? Number.NaN

describe('program cost', () => {
  it('is one unit for a BGV multiply at n=4096 with two data primes, and scales with n·log n·primes', () => {
    const multiply = program([{ op: 'multiply', a: 'x', b: 'y', out: 'r' }])
    const small = programCost(multiply, { scheme: 'bgv', polyModulusDegree: 4096, dataPrimes: 2 })
    expect(stepUnits(small, 0)).toBeCloseTo(0.9, 5)
    const big = programCost(multiply, { scheme: 'bgv', polyModulusDegree: 16384, dataPrimes: 8 })
    expect(stepUnits(big, 0) / stepUnits(small, 0)).toBeCloseTo(4 * (14 / 12) * 4, 5)
    expect(costScale(4096, 2)).toBe(1)
    // SEAL's default primes when the target names none: 8 data primes at n=16384.
    expect(programCost(multiply, { scheme: 'bgv', polyModulusDegree: 16384 }).units).toBeCloseTo(big.units, 5)
  })

  it('counts exponentiate as e − 1 multiplies and relinearizations, as SEAL does', () => {
    const power = (exponent: number) =>
      programCost(program([{ op: 'exponentiate', a: 'x', exponent, out: 'r' }]), {
        scheme: 'bfv',
        polyModulusDegree: 16384,
      })
    const one = stepUnits(power(2), 0)
    expect(stepUnits(power(64), 0)).toBeCloseTo(63 * one, 5)
    expect(stepUnits(power(1), 0)).toBe(0)
    // Two exponentiations by 64 at n=16384 are tens of thousands of units (they held a worker past 30 s).
    expect(2 * stepUnits(power(64), 0)).toBeGreaterThan(30_000)
  })

  it('charges each step at the level its ciphertext has then', () => {
    const target = { scheme: 'bfv', polyModulusDegree: 8192, dataPrimes: 4 } as const
    const top = programCost(program([{ op: 'multiply', a: 'x', b: 'y', out: 'r' }]), target)
    const lowered = programCost(
      program([
        { op: 'modSwitchToNext', a: 'x', out: 'x1' },
        { op: 'modSwitchToNext', a: 'y', out: 'y1' },
        { op: 'multiply', a: 'x1', b: 'y1', out: 'r' },
      ]),
      target,
    )
    expect(lowered.steps[2]?.primes).toBe(3)
    expect(stepUnits(lowered, 2) / stepUnits(top, 0)).toBeCloseTo(3 / 4, 5)
    const last = programCost(
      program([
        { op: 'modSwitchToLast', a: 'x', out: 'x1' },
        { op: 'square', a: 'x1', out: 'r' },
      ]),
      target,
    )
    expect(last.steps[1]?.primes).toBe(1)
  })

  it('makes unrelinearized products dearer and counts the rotations of sumElements', () => {
    const target = { scheme: 'bgv', polyModulusDegree: 4096 } as const
    const grown = programCost(
      program([
        { op: 'multiply', a: 'x', b: 'y', out: 'xy' },
        { op: 'multiply', a: 'xy', b: 'x', out: 'r' },
      ]),
      target,
    )
    expect(stepUnits(grown, 1)).toBeCloseTo(stepUnits(grown, 0) * 1.5, 5)
    const sum = programCost(program([{ op: 'sumElements', a: 'x', out: 'r' }]), target)
    const rotate = programCost(program([{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }]), target)
    // 11 row rotations at n=4096 plus the column rotation.
    expect(stepUnits(sum, 0)).toBeGreaterThan(11 * stepUnits(rotate, 0))
  })

  it('is part of the static analysis, with the data primes of the parameters', () => {
    const params = parseParams({ scheme: 'bfv', polyModulusDegree: 4096 })
    const analysis = analyzeProgram(
      {
        version: 1,
        inputs: [{ name: 'x', kind: 'ciphertext' }],
        steps: [
          { op: 'square', a: 'x', out: 's' },
          { op: 'relinearize', a: 's', out: 'r' },
        ],
        outputs: ['r'],
      },
      params,
    )
    expect(analysis.cost.steps.map((step) => step.primes)).toEqual([
      params.coeffModulusBits.length - 1,
      params.coeffModulusBits.length - 1,
    ])
    expect(analysis.cost.units).toBeGreaterThan(10)
    expect(analysis.cost.units).toBeLessThan(40)
  })
})
