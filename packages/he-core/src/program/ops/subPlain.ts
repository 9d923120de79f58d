import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue, plainPair } from './opEvaluate.ts'
import { ALL_SCHEMES, CIPHER_A, noKeys, opFacts, PLAIN_B, type SchemeUnits, weightedCost } from './opKit.ts'

/** Cost units of ct − pt. */
export const SUB_PLAIN_UNITS: SchemeUnits = { bfv: 2.8, bgv: 0.43, ckks: 0.01 }

/** ct − pt. */
export const subPlain: OpDefinition<'subPlain'> = {
  ...opFacts('Subtract plaintext', [CIPHER_A, PLAIN_B], ALL_SCHEMES, 'a − plaintext b', { alignable: true }),
  analyze: noKeys,
  cost: weightedCost(SUB_PLAIN_UNITS),
  noise: () => ({}),
  plain: (step, e) => e.sub(e.get(step.a), e.get(step.b)),
  execute(step, e) {
    const [x, p] = plainPair(step, e)
    const d = e.out()
    e.call(() => e.ctx.evaluator.subPlain(x, p, d))
    return cipherValue(d)
  },
  emitTs(_step, e) {
    const p = e.pair(true)
    return [e.comment, e.ciphertext, ...e.withPair(p, [`evaluator.subPlain(${p.x}, ${p.y}, ${e.out})`])]
  },
  emitPy(_step, e) {
    const p = e.pair(e.ckks)
    return [e.comment, ...p.setup, `${e.out} = evaluator.sub_plain(${p.x}, ${p.y})`]
  },
}
