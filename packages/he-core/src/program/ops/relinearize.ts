import { requireRelinPowers } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  ALL_SCHEMES,
  CIPHER_A,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  type SchemeUnits,
  unitsOf,
} from './opKit.ts'

/** Cost units of relinearizing a size-3 ciphertext (one key switch). */
export const RELINEARIZE_UNITS: SchemeUnits = { bfv: 5.6, bgv: 5.3, ckks: 3.8 }

/** Back to size 2 with the relinearization keys: one key switch per polynomial above 2. */
export const relinearize: OpDefinition<'relinearize'> = {
  ...opFacts('Relinearize', [CIPHER_A], ALL_SCHEMES, 'a back to size 2 (relinearization keys)', { relin: true }),
  analyze: () => ({ galoisSteps: [], column: false, relin: true, keySwitches: 1 }),
  cost: (_step, e) => ({
    work: unitsOf(RELINEARIZE_UNITS, e.scheme) * Math.max(1, e.a.size - 2) * keySwitchScale(e.primes),
    out: { primes: e.primes, size: 2 },
    scratch: KEY_SWITCH_SCRATCH,
  }),
  noise: () => ({}),
  plain: (step, e) => [...e.get(step.a)],
  execute(step, e) {
    const a = e.cipher(step.a)
    requireRelinPowers(e.frame, e.keys.relinKeys, a.name, a.value.size())
    const d = e.out()
    e.call(() => e.ctx.evaluator.relinearize(a.value, e.relinKeys(), d))
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.relinearize(${e.a}, relinKeys, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.relinearize(${e.a}, relin_keys)`],
}
