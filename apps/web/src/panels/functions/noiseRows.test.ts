import { describe, expect, it } from 'vitest'
import { checkPipeline } from '../../workspace/pipeline.ts'
import { bfvWorkspace, step, variable } from '../../workspace/testWorkspace.ts'
import { noiseRows } from './noiseRows.ts'

describe('noiseRows', () => {
  const state = bfvWorkspace({
    variables: [
      variable('x', { noiseBudget: 45, level: 1 }),
      variable('y', { noiseBudget: 44, level: 1 }),
      variable('r1', { origin: 'pipeline', noiseBudget: 14, level: 1, size: 3 }),
    ],
    pipeline: [
      step('multiply', 'x', 'r1', { b: 'y', last: { status: 'ok', timeMs: 1, noiseBudget: 14, level: 1, size: 3 } }),
      step('relinearize', 'r1', 'r2'),
      step('square', 'r2', 'r3'),
    ],
  })
  const program = checkPipeline(state).program
  if (!program) throw new Error('the test pipeline should form a program')

  it('lists the ciphertext inputs with their measured budgets, then every step', () => {
    const { rows } = noiseRows(state, program)
    expect(rows.map((r) => [r.label, r.measured])).toEqual([
      ['x', 45],
      ['y', 44],
      ['1 Multiply', 14],
      ['2 Relinearize', undefined],
      ['3 Square', undefined],
    ])
  })

  it('gives a measured step its delta against its smallest operand, and predicts from the measured inputs', () => {
    const { rows, prediction } = noiseRows(state, program)
    expect(rows[2]?.delta).toBe(14 - 44)
    // BFV multiply at n = 4096, t ≈ 2^20: log2 t + log2 n − 1 ≈ 31 bits of the smaller budget.
    expect(rows[2]?.predicted).toBe(13)
    expect(rows[3]?.predicted).toBe(13)
    expect(rows[4]?.predictedExhausted).toBe(true)
    expect(prediction.firstExhausted).toBe(2)
  })
})
