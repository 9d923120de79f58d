import { PROGRAM_OPS } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { OP_GROUPS, opLabel } from './opGroups.ts'

describe('OP_GROUPS (the step menu)', () => {
  it("offers every program op of he-core exactly once, under he-core's name for it", () => {
    const listed = OP_GROUPS.flatMap((group) => group.ops.map((entry) => entry.op))
    expect(listed.filter((op, index) => listed.indexOf(op) !== index)).toEqual([])
    expect([...listed].sort()).toEqual(Object.keys(PROGRAM_OPS).sort())
    for (const group of OP_GROUPS) {
      for (const entry of group.ops) expect(entry.label).toBe(PROGRAM_OPS[entry.op].label)
    }
  })

  it('names an op by its label, and leaves other text as it is', () => {
    expect(opLabel('rotateColumns')).toBe('Rotate columns (swap rows)')
    expect(opLabel('toString')).toBe('toString')
    expect(opLabel('unknownOp')).toBe('unknownOp')
  })
})
