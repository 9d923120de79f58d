import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import { ALL_SCHEMES, CIPHER_A, noKeys, opFacts, type SchemeUnits, weightedCost } from './opKit.ts'

/** Cost units of −ct. */
export const NEGATE_UNITS: SchemeUnits = { bfv: 0.02, bgv: 0.03, ckks: 0.01 }

/** −ct. */
export const negate: OpDefinition<'negate'> = {
  ...opFacts('Negate', [CIPHER_A], ALL_SCHEMES, '−a'),
  analyze: noKeys,
  cost: weightedCost(NEGATE_UNITS),
  noise: () => ({}),
  plain: (step, e) => e.negate(e.get(step.a)),
  execute(step, e) {
    const d = e.out()
    e.call(() => e.ctx.evaluator.negate(e.cipher(step.a).value, d))
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.negate(${e.a}, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.negate(${e.a})`],
}
