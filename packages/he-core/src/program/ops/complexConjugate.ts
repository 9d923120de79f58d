import { requireSize2 } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  CIPHER_A,
  CKKS_SCHEME,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  type SchemeUnits,
  samePlain,
  unitsOf,
} from './opKit.ts'

/** Cost units of a CKKS conjugation (one key switch). */
export const CONJUGATE_UNITS: SchemeUnits = { ckks: 3 }

/** CKKS: every slot complex-conjugated (Galois element 2n − 1); real slots are unchanged. */
export const complexConjugate: OpDefinition<'complexConjugate'> = {
  ...opFacts('Complex conjugate', [CIPHER_A], CKKS_SCHEME, 'a with every slot complex-conjugated'),
  analyze: () => ({ galoisSteps: [], column: true, relin: false, keySwitches: 1 }),
  cost: (_step, e) => ({
    work: unitsOf(CONJUGATE_UNITS, e.scheme) * keySwitchScale(e.primes),
    scratch: KEY_SWITCH_SCRATCH,
  }),
  noise: () => ({}),
  plain: samePlain,
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    e.call(() => e.ctx.evaluator.complexConjugate(a.value, e.galoisKeys(), d))
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.complexConjugate(${e.a}, galoisKeys, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.complex_conjugate(${e.a}, galois_keys)`],
}
