import { requireSize2 } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  BATCHED_SCHEMES,
  CIPHER_A,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  type SchemeUnits,
  unitsOf,
} from './opKit.ts'

/** Cost units of swapping the batching rows (one key switch). */
export const ROTATE_COLUMNS_UNITS: SchemeUnits = { bfv: 4, bgv: 7.7 }

/** BFV/BGV: the two batching rows swapped (Galois element 2n − 1). */
export const rotateColumns: OpDefinition<'rotateColumns'> = {
  ...opFacts('Rotate columns (swap rows)', [CIPHER_A], BATCHED_SCHEMES, 'a with its two batching rows swapped'),
  analyze: () => ({ galoisSteps: [], column: true, relin: false, keySwitches: 1 }),
  cost: (_step, e) => ({
    work: unitsOf(ROTATE_COLUMNS_UNITS, e.scheme) * keySwitchScale(e.primes),
    scratch: KEY_SWITCH_SCRATCH,
  }),
  noise: (_step, e) => (e.ckks ? {} : { budget: Math.min(e.budget, e.ceiling(e.level) - 3) }),
  plain: (step, e) => e.swapRows(e.get(step.a)),
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    e.call(() => e.ctx.evaluator.rotateColumns(a.value, e.galoisKeys(), d))
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.rotateColumns(${e.a}, galoisKeys, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.rotate_columns(${e.a}, galois_keys)`],
}
