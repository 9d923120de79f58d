import type { ProgramOp } from '../program/ProgramSpec.ts'
import { PROGRAM_OPS } from '../program/programOps.ts'

/**
 * The sentence a generated BFV/BGV program stops with when step `index` leaves its result
 * without noise budget: the words of sealbox's evaluator (`runProgram`), with the step
 * named as the sandbox's step menu names it ("Step 5 (Rotate rows)", not "step 5
 * (rotateRows)"): the program's reader is a person, not the program format. (A text that
 * is no op is named as it is.) The sandbox's Code panel promises exactly this line.
 */
export function noiseBudgetStopMessage(step: { op: string; out: string }, index: number): string {
  const name = Object.hasOwn(PROGRAM_OPS, step.op) ? PROGRAM_OPS[step.op as ProgramOp].label : step.op
  return `Step ${index + 1} (${name}): '${step.out}' has no noise budget left, so it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications`
}
