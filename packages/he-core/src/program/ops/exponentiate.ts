import { requireSize2 } from '../stepOperands.ts'
import { MULTIPLY_UNITS, productScratch } from './multiply.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  BATCHED_SCHEMES,
  CIPHER_A,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  productBudget,
  unitsOf,
} from './opKit.ts'
import { RELINEARIZE_UNITS } from './relinearize.ts'

/**
 * ct^exponent (BFV/BGV). SEAL multiplies `exponent` copies pairwise (`multiply_many`),
 * relinearizing after each product: e − 1 multiplications and key switches, ⌈log2 e⌉ deep.
 */
export const exponentiate: OpDefinition<'exponentiate'> = {
  ...opFacts('Exponentiate', [CIPHER_A], BATCHED_SCHEMES, 'a^exponent, relinearizing after each multiplication', {
    relin: true,
  }),
  analyze: (step) => ({ galoisSteps: [], column: false, relin: step.exponent > 1, keySwitches: step.exponent - 1 }),
  cost: (step, e) => ({
    work:
      (step.exponent - 1) *
      (unitsOf(MULTIPLY_UNITS, e.scheme) + unitsOf(RELINEARIZE_UNITS, e.scheme) * keySwitchScale(e.primes)),
    out: { primes: e.primes, size: 2 },
    // multiply_many keeps the e copies' products in a list while it multiplies them pairwise.
    scratch: step.exponent > 1 ? step.exponent * 2 + productScratch(e.scheme, 2, 2) + KEY_SWITCH_SCRATCH : 0,
  }),
  noise: (step, e) => (e.ckks ? {} : { budget: productBudget(e, Math.ceil(Math.log2(Math.max(1, step.exponent)))) }),
  plain(step, e) {
    const a = e.get(step.a)
    let result = a
    for (let i = 1; i < step.exponent; i++) result = e.mul(result, a)
    return result
  },
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    e.call(() => e.ctx.evaluator.exponentiate(a.value, BigInt(step.exponent), e.relinKeys(), d))
    return cipherValue(d)
  },
  emitTs: (step, e) => [
    e.comment,
    e.ciphertext,
    `evaluator.exponentiate(${e.a}, ${step.exponent}n, relinKeys, ${e.out})`,
  ],
  emitPy: (step, e) => [e.comment, `${e.out} = evaluator.exponentiate(${e.a}, ${step.exponent}, relin_keys)`],
}
