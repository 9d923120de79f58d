import { describe, expect, it } from 'vitest'
import { ProgramStep } from '../ProgramSpec.ts'
import { PROGRAM_OP_NAMES, PROGRAM_OPS } from '../programOps.ts'
import { negate } from './negate.ts'
import type { OpDefinition, OpTable } from './OpDefinition.ts'
import { OP_DEFINITIONS } from './opTable.ts'

const PARTS = ['analyze', 'cost', 'noise', 'plain', 'execute', 'emitTs', 'emitPy'] as const

describe('OP_DEFINITIONS', () => {
  it('defines every op of the program format, each with all seven parts', () => {
    const ops = ProgramStep.options.map((option) => option.shape.op.value)
    expect(Object.keys(OP_DEFINITIONS).sort()).toEqual([...ops].sort())
    for (const definition of Object.values(OP_DEFINITIONS)) {
      for (const part of PARTS) expect(typeof definition[part]).toBe('function')
    }
  })

  it('is what PROGRAM_OPS and the menu order are read from', () => {
    expect(PROGRAM_OP_NAMES).toEqual(Object.keys(OP_DEFINITIONS))
    expect(PROGRAM_OPS.rotateRows.schemes).toBe(OP_DEFINITIONS.rotateRows.schemes)
  })

  it('names every op for people once, in words rather than its id', () => {
    const labels = PROGRAM_OP_NAMES.map((op) => PROGRAM_OPS[op].label)
    expect(new Set(labels).size).toBe(labels.length)
    for (const label of labels) expect(label).toMatch(/^[A-Z][a-z-]*( [a-z-]+| \(swap rows\))*$/)
    expect(PROGRAM_OPS.rotateRows.label).toBe('Rotate rows')
  })

  it('does not compile when a definition lacks a part or the table lacks an op', () => {
    const { emitPy: _dropped, ...withoutEmitPy } = negate
    // @ts-expect-error an op definition without emitPy is not an OpDefinition
    const incomplete: OpDefinition<'negate'> = withoutEmitPy
    const { negate: _missing, ...withoutNegate } = OP_DEFINITIONS
    // @ts-expect-error a table without negate is not an OpTable
    const partial: OpTable = withoutNegate
    // @ts-expect-error a definition is typed for its own op: negate's is not rotateRows's
    const misfiled: OpDefinition<'rotateRows'> = negate
    expect([incomplete, partial, misfiled].every((value) => value !== undefined)).toBe(true)
  })
})
