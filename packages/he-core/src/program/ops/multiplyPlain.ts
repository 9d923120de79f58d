import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue, productWithPlain } from './opEvaluate.ts'
import { ALL_SCHEMES, CIPHER_A, noKeys, opFacts, PLAIN_B, type SchemeUnits, scaleOf, weightedCost } from './opKit.ts'

/** Cost units of ct × pt. */
export const MULTIPLY_PLAIN_UNITS: SchemeUnits = { bfv: 1.7, bgv: 1, ckks: 0.6 }

/** ct × pt. */
export const multiplyPlain: OpDefinition<'multiplyPlain'> = {
  ...opFacts('Multiply by plaintext', [CIPHER_A, PLAIN_B], ALL_SCHEMES, 'a × plaintext b', { alignable: true }),
  analyze: noKeys,
  cost: weightedCost(MULTIPLY_PLAIN_UNITS),
  noise: (_step, e) => (e.ckks ? { scaleBits: scaleOf(e.a) + scaleOf(e.b) } : { budget: e.budget - e.plainSpend }),
  plain: (step, e) => e.mul(e.get(step.a), e.get(step.b)),
  execute(step, e) {
    const [x, p] = productWithPlain(step, e, { size2: false })
    const d = e.out()
    e.call(() => e.ctx.evaluator.multiplyPlain(x, p, d))
    return cipherValue(d)
  },
  emitTs(_step, e) {
    const p = e.pair(false)
    return [e.comment, e.ciphertext, ...e.withPair(p, [`evaluator.multiplyPlain(${p.x}, ${p.y}, ${e.out})`])]
  },
  emitPy(_step, e) {
    const p = e.pair(false)
    return [e.comment, ...p.setup, `${e.out} = evaluator.multiply_plain(${p.x}, ${p.y})`]
  },
}
