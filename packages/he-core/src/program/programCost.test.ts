import { describe, expect, it } from 'vitest'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { parseParams } from '../params/parseParams.ts'
import { analyzeProgram } from './analyzeProgram.ts'
import { MULTIPLY_UNITS } from './ops/multiply.ts'
import { GROWN_PRODUCT_FACTOR } from './ops/opKit.ts'
import { parseProgram } from './parseProgram.ts'
import { costScale, LOAD_UNITS_PER_OBJECT, programCost, SAVE_UNITS_PER_OBJECT, valueHeapBytes } from './programCost.ts'
import { nafTerms } from './rotationKeys.ts'

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
    expect(stepUnits(small, 0)).toBeCloseTo(MULTIPLY_UNITS.bgv ?? Number.NaN, 5)
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
    // A size-3 × size-2 product: 1.5× the pairs, on SEAL's general (slower) path.
    expect(stepUnits(grown, 1)).toBeCloseTo(stepUnits(grown, 0) * 1.5 * GROWN_PRODUCT_FACTOR, 5)
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

  it('prices a rotation at the NAF terms SEAL composes it from, unless the key set holds its own key', () => {
    const target = { scheme: 'bfv', polyModulusDegree: 8192 } as const
    const rotate = (steps: number) => program([{ op: 'rotateRows', a: 'x', steps, out: 'r' }])
    // 1365 = 0b10101010101: six NAF terms.
    expect(nafTerms(1365)).toHaveLength(6)
    const one = stepUnits(programCost(rotate(1), target), 0)
    expect(stepUnits(programCost(rotate(1365), target), 0)).toBeCloseTo(6 * one, 5)
    const own = programCost(rotate(1365), { ...target, galoisElements: [galoisElementOf(8192, 1365)] })
    expect(stepUnits(own, 0)).toBeCloseTo(one, 5)
    // With only power-of-two keys SEAL still composes it.
    const powers = programCost(rotate(1365), {
      ...target,
      galoisElements: [1, 4, 16, 64, 256, 1024].map((s) => galoisElementOf(8192, s)),
    })
    expect(stepUnits(powers, 0)).toBeCloseTo(6 * one, 5)
  })

  it('estimates the peak heap from the values alive at once, their sizes and levels, and SEAL scratch', () => {
    const target = { scheme: 'bfv', polyModulusDegree: 8192, dataPrimes: 4 } as const
    const fresh = valueHeapBytes('bfv', 8192, { primes: 4, size: 2 })
    expect(fresh).toBe(2 * 4 * 8192 * 8)
    const base = programCost(program([{ op: 'add', a: 'x', b: 'y', out: 'r' }]), target)
    // Growing products without relinearizing: sizes 3, 5, 9, and each is read twice.
    const grown = programCost(
      program([
        { op: 'square', a: 'x', out: 's3' },
        { op: 'square', a: 's3', out: 's5' },
        { op: 'square', a: 's5', out: 's9' },
        { op: 'multiply', a: 's9', b: 's5', out: 'r' },
      ]),
      target,
    )
    expect(grown.peakHeapBytes - base.peakHeapBytes).toBeGreaterThan(
      valueHeapBytes('bfv', 8192, { primes: 4, size: 13 }) * 3,
    )
    // Freed at last use: a long chain of fresh-size steps needs no more than a short one.
    const chain = (length: number) =>
      programCost(
        program(
          Array.from({ length }, (_, i) => ({
            op: 'add',
            a: i === 0 ? 'x' : `v${i - 1}`,
            b: 'y',
            out: i === length - 1 ? 'r' : `v${i}`,
          })),
        ),
        target,
      ).peakHeapBytes
    expect(chain(40)).toBe(chain(3))
    // Keys count too.
    const withKeys = programCost(program([{ op: 'add', a: 'x', b: 'y', out: 'r' }]), { ...target, keyHeapBytes: 1e8 })
    expect(withKeys.peakHeapBytes - base.peakHeapBytes).toBe(1e8)
  })

  it('charges loading the inputs and saving the outputs by their bytes', () => {
    const small = programCost(program([{ op: 'add', a: 'x', b: 'y', out: 'r' }]), {
      scheme: 'bfv',
      polyModulusDegree: 4096,
    })
    const big = programCost(program([{ op: 'add', a: 'x', b: 'y', out: 'r' }]), {
      scheme: 'bfv',
      polyModulusDegree: 16384,
    })
    // A part per object (three inputs, one output), and per byte: ciphertexts have 4× the
    // coefficients and 4× the primes, 16× the bytes (the BFV plaintext input only 4×).
    const objects = 3 * LOAD_UNITS_PER_OBJECT + SAVE_UNITS_PER_OBJECT
    expect((big.ioUnits - objects) / (small.ioUnits - objects)).toBeGreaterThan(15)
    expect((big.ioUnits - objects) / (small.ioUnits - objects)).toBeLessThan(16)
  })
})
