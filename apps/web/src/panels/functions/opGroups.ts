import type { ProgramOp } from '@sealbox/he-core'

/** The program ops grouped for the step menu, with names for people. */
export const OP_GROUPS: ReadonlyArray<{ label: string; ops: ReadonlyArray<{ op: ProgramOp; label: string }> }> = [
  {
    label: 'Arithmetic',
    ops: [
      { op: 'add', label: 'Add' },
      { op: 'sub', label: 'Subtract' },
      { op: 'negate', label: 'Negate' },
      { op: 'multiply', label: 'Multiply' },
      { op: 'square', label: 'Square' },
      { op: 'exponentiate', label: 'Exponentiate' },
    ],
  },
  {
    label: 'With a plaintext',
    ops: [
      { op: 'addPlain', label: 'Add plaintext' },
      { op: 'subPlain', label: 'Subtract plaintext' },
      { op: 'multiplyPlain', label: 'Multiply by plaintext' },
    ],
  },
  {
    label: 'Noise and levels',
    ops: [
      { op: 'relinearize', label: 'Relinearize' },
      { op: 'rescaleToNext', label: 'Rescale to next level' },
      { op: 'modSwitchToNext', label: 'Mod-switch to next level' },
      { op: 'modSwitchToLast', label: 'Mod-switch to last level' },
    ],
  },
  {
    label: 'Rotations',
    ops: [
      { op: 'rotateRows', label: 'Rotate rows' },
      { op: 'rotateColumns', label: 'Rotate columns (swap rows)' },
      { op: 'rotateVector', label: 'Rotate vector' },
      { op: 'complexConjugate', label: 'Complex conjugate' },
    ],
  },
  {
    label: 'Aggregates',
    ops: [
      { op: 'sumElements', label: 'Sum of all slots' },
      { op: 'innerProduct', label: 'Inner product' },
      { op: 'innerProductPlain', label: 'Inner product with plaintext' },
    ],
  },
]

/** The label of an op ("Multiply"), or the op itself. */
export function opLabel(op: string): string {
  for (const group of OP_GROUPS) for (const entry of group.ops) if (entry.op === op) return entry.label
  return op
}
