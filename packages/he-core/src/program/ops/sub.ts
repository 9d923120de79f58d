import type { OpDefinition } from './OpDefinition.ts'
import { cipherPair, cipherValue } from './opEvaluate.ts'
import { ALL_SCHEMES, CIPHER_A, CIPHER_B, noKeys, opFacts, type SchemeUnits, weightedCost } from './opKit.ts'

/** Cost units of ct − ct. */
export const SUB_UNITS: SchemeUnits = { bfv: 0.03, bgv: 0.07, ckks: 0.02 }

/** ct − ct. */
export const sub: OpDefinition<'sub'> = {
  ...opFacts('Subtract', [CIPHER_A, CIPHER_B], ALL_SCHEMES, 'a − b', { alignable: true }),
  analyze: noKeys,
  cost: weightedCost(SUB_UNITS),
  noise: (_step, e) => (e.ckks ? {} : { budget: e.bothCipher && e.a.budget === e.b?.budget ? e.budget - 1 : e.budget }),
  plain: (step, e) => e.sub(e.get(step.a), e.get(step.b)),
  execute(step, e) {
    const [x, y] = cipherPair(step, e, true)
    const d = e.out()
    e.call(() => e.ctx.evaluator.sub(x, y, d))
    return cipherValue(d)
  },
  emitTs(_step, e) {
    const p = e.pair(e.ckks)
    return [e.comment, e.ciphertext, ...e.withPair(p, [`evaluator.sub(${p.x}, ${p.y}, ${e.out})`])]
  },
  emitPy(_step, e) {
    const p = e.pair(e.ckks)
    return [e.comment, ...p.setup, `${e.out} = evaluator.sub(${p.x}, ${p.y})`]
  },
}
