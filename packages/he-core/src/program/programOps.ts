import type { ProgramOpInfo } from './ops/OpDefinition.ts'
import { OP_DEFINITIONS } from './ops/opTable.ts'
import type { ProgramOp, ProgramStep, ValueKind } from './ProgramSpec.ts'

export type { OperandKind, ProgramOpInfo } from './ops/OpDefinition.ts'
export { stepLabel } from './stepLabel.ts'

/** Every op of the program format with its static facts (a view of each op's definition). */
export const PROGRAM_OPS: Readonly<Record<ProgramOp, ProgramOpInfo>> = Object.fromEntries(
  Object.entries(OP_DEFINITIONS).map(([op, d]) => [
    op,
    {
      label: d.label,
      operands: d.operands,
      schemes: d.schemes,
      relin: d.relin,
      alignable: d.alignable,
      sumsSlots: d.sumsSlots,
      summary: d.summary,
    },
  ]),
) as Record<ProgramOp, ProgramOpInfo>

/** The op names in the order of the table (for menus). */
export const PROGRAM_OP_NAMES = Object.keys(PROGRAM_OPS) as ProgramOp[]

/** The operand names a step reads, in order. */
export function operandsOf(step: ProgramStep): string[] {
  return 'b' in step ? [step.a, step.b] : [step.a]
}

/** The kind of value a step produces, given the kind of its first operand. */
export function outputKindOf(step: ProgramStep, kindOfA: ValueKind): ValueKind {
  return OP_DEFINITIONS[step.op].operands[0]?.kind === 'either' ? kindOfA : 'ciphertext'
}
