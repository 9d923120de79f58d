import { PROGRAM_OPS, type ProgramOp } from '@sealbox/he-core'

/** One group of the step menu: its heading and its ops, each with he-core's name for people. */
export interface OpGroup {
  label: string
  ops: ReadonlyArray<{ op: ProgramOp; label: string }>
}

function group(label: string, ops: readonly ProgramOp[]): OpGroup {
  return { label, ops: ops.map((op) => ({ op, label: PROGRAM_OPS[op].label })) }
}

/**
 * The program ops grouped for the step menu. The grouping is the menu's own; the names
 * are he-core's (`PROGRAM_OPS[op].label`), so what a generated program prints about a
 * step reads as the menu does. A unit test holds every op to appear here exactly once.
 */
export const OP_GROUPS: readonly OpGroup[] = [
  group('Arithmetic', ['add', 'sub', 'negate', 'multiply', 'square', 'exponentiate']),
  group('With a plaintext', ['addPlain', 'subPlain', 'multiplyPlain']),
  group('Noise and levels', ['relinearize', 'rescaleToNext', 'modSwitchToNext', 'modSwitchToLast']),
  group('Rotations', ['rotateRows', 'rotateColumns', 'rotateVector', 'complexConjugate']),
  group('Aggregates', ['sumElements', 'innerProduct', 'innerProductPlain']),
]

/** The label of an op ("Multiply"), or the text itself when it is no op. */
export function opLabel(op: string): string {
  return Object.hasOwn(PROGRAM_OPS, op) ? PROGRAM_OPS[op as ProgramOp].label : op
}
