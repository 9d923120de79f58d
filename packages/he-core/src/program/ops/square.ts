import { levelOf, requireProductScale } from '../stepOperands.ts'
import { productScratch } from './multiply.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  ALL_SCHEMES,
  CIPHER_A,
  noKeys,
  opFacts,
  productBudget,
  type SchemeUnits,
  scaleOf,
  sizeFactor,
  unitsOf,
} from './opKit.ts'

/** Cost units of ct². */
export const SQUARE_UNITS: SchemeUnits = { bfv: 10.5, bgv: 0.9, ckks: 0.8 }

/** ct²; the size grows to 2 · a.size − 1. */
export const square: OpDefinition<'square'> = {
  ...opFacts('Square', [CIPHER_A], ALL_SCHEMES, 'a² (size 3: relinearize next)'),
  analyze: noKeys,
  cost: (_step, e) => ({
    work: unitsOf(SQUARE_UNITS, e.scheme) * sizeFactor({ scheme: e.scheme, a: e.a, b: e.a }),
    out: { primes: e.primes, size: 2 * Math.max(2, e.a.size) - 1 },
    scratch: productScratch(e.scheme, Math.max(2, e.a.size), Math.max(2, e.a.size)),
  }),
  noise: (_step, e) => (e.ckks ? { scaleBits: 2 * scaleOf(e.a) } : { budget: productBudget(e, 1) }),
  plain: (step, e) => e.mul(e.get(step.a), e.get(step.a)),
  execute(step, e) {
    const a = e.cipher(step.a)
    requireProductScale(e.frame, levelOf(e.frame, a.value, a.name), a.value.scale(), a.value.scale())
    const d = e.out()
    e.call(() => e.ctx.evaluator.square(a.value, d))
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.square(${e.a}, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.square(${e.a})`],
}
