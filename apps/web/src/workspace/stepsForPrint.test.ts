import { describe, expect, it } from 'vitest'
import { stepsForPrint } from './stepsForPrint.ts'

const parts = (step: { a: string; b?: string; out: string }) => ({
  reads: step.b === undefined ? [step.a] : [step.a, step.b],
  out: step.out,
})

describe('stepsForPrint', () => {
  const pipeline = [
    { a: 'x', b: 'x', out: 'r1' },
    { a: 'r1', out: 'r2' },
    { a: 'r2', b: 'x', out: 'r3' },
    { a: 'x', b: 'y', out: 's' },
  ]

  it('keeps what a printed name needs, and nothing after it', () => {
    expect(stepsForPrint(pipeline, ['r2'], parts)).toEqual([0, 1])
    expect(stepsForPrint(pipeline, ['s'], parts)).toEqual([3])
    expect(stepsForPrint(pipeline, ['r3', 's'], parts)).toEqual([0, 1, 2, 3])
  })

  it('keeps no step for a printed input, and only the last writer of a name', () => {
    expect(stepsForPrint(pipeline, ['x'], parts)).toEqual([])
    const rewrites = [
      { a: 'x', out: 't' },
      { a: 'y', out: 't' },
    ]
    expect(stepsForPrint(rewrites, ['t'], parts)).toEqual([1])
  })
})
