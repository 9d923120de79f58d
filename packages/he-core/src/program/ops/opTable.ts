import type { ProgramOp, StepOf } from '../ProgramSpec.ts'
import { add } from './add.ts'
import { addPlain } from './addPlain.ts'
import { complexConjugate } from './complexConjugate.ts'
import { exponentiate } from './exponentiate.ts'
import { innerProduct } from './innerProduct.ts'
import { innerProductPlain } from './innerProductPlain.ts'
import { modSwitchToLast } from './modSwitchToLast.ts'
import { modSwitchToNext } from './modSwitchToNext.ts'
import { multiply } from './multiply.ts'
import { multiplyPlain } from './multiplyPlain.ts'
import { negate } from './negate.ts'
import type { OpDefinition, OpTable } from './OpDefinition.ts'
import { relinearize } from './relinearize.ts'
import { rescaleToNext } from './rescaleToNext.ts'
import { rotateColumns } from './rotateColumns.ts'
import { rotateRows } from './rotateRows.ts'
import { rotateVector } from './rotateVector.ts'
import { square } from './square.ts'
import { sub } from './sub.ts'
import { subPlain } from './subPlain.ts'
import { sumElements } from './sumElements.ts'

/**
 * Every op of the program format, defined once (in menu order). `satisfies` makes
 * the compiler name an op of `ProgramStep` that has no definition, and any part a
 * definition lacks.
 */
export const OP_DEFINITIONS = {
  add,
  sub,
  negate,
  multiply,
  square,
  exponentiate,
  addPlain,
  subPlain,
  multiplyPlain,
  relinearize,
  rescaleToNext,
  modSwitchToNext,
  modSwitchToLast,
  rotateRows,
  rotateColumns,
  rotateVector,
  complexConjugate,
  sumElements,
  innerProduct,
  innerProductPlain,
} as const satisfies OpTable

/**
 * The definition of a step's op, typed for that step. (TypeScript cannot follow a
 * union of steps into a table lookup, so this is the one place that says they match.)
 */
export function definitionOf<Op extends ProgramOp>(step: StepOf<Op>): OpDefinition<Op> {
  return OP_DEFINITIONS[step.op] as unknown as OpDefinition<Op>
}
