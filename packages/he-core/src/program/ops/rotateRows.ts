import { requireSize2 } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  BATCHED_SCHEMES,
  CIPHER_A,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  rotationKeys,
  rotationUnits,
  type SchemeUnits,
  unitsOf,
} from './opKit.ts'

/** Cost units of one row rotation (one key switch). */
export const ROTATE_ROWS_UNITS: SchemeUnits = { bfv: 5, bgv: 5.4 }

/** BFV/BGV: both rows of the 2 × n/2 batching matrix rotated left by `steps` (negative: right). */
export const rotateRows: OpDefinition<'rotateRows'> = {
  ...opFacts(
    'Rotate rows',
    [CIPHER_A],
    BATCHED_SCHEMES,
    'a with both batching rows rotated left by steps (negative: right)',
  ),
  analyze: rotationKeys,
  // A rotation without its own key is one key switch per NAF term (SEAL composes it).
  cost: (step, e) => ({
    work:
      rotationUnits(unitsOf(ROTATE_ROWS_UNITS, e.scheme), e.rotationSwitches(step.steps)) * keySwitchScale(e.primes),
    scratch: KEY_SWITCH_SCRATCH,
  }),
  // A key switch adds a fixed noise: at most the level's ceiling − 3 is left.
  noise: (_step, e) => (e.ckks ? {} : { budget: Math.min(e.budget, e.ceiling(e.level) - 3) }),
  plain: (step, e) => e.rotate(e.get(step.a), step.steps),
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    e.call(() => e.ctx.evaluator.rotateRows(a.value, step.steps, e.galoisKeys(), d))
    return cipherValue(d)
  },
  emitTs: (step, e) => [e.comment, e.ciphertext, `evaluator.rotateRows(${e.a}, ${step.steps}, galoisKeys, ${e.out})`],
  emitPy: (step, e) => [e.comment, `${e.out} = evaluator.rotate_rows(${e.a}, ${step.steps}, galois_keys)`],
}
