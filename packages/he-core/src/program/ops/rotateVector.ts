import { requireSize2 } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import {
  CIPHER_A,
  CKKS_SCHEME,
  KEY_SWITCH_SCRATCH,
  keySwitchScale,
  opFacts,
  rotationKeys,
  rotationUnits,
  type SchemeUnits,
  unitsOf,
} from './opKit.ts'

/** Cost units of one CKKS vector rotation (one key switch). */
export const ROTATE_VECTOR_UNITS: SchemeUnits = { ckks: 4.6 }

/** CKKS: the slot vector rotated left by `steps` (negative: right). */
export const rotateVector: OpDefinition<'rotateVector'> = {
  ...opFacts('Rotate vector', [CIPHER_A], CKKS_SCHEME, 'a with its slots rotated left by steps (negative: right)'),
  analyze: rotationKeys,
  // A rotation without its own key is one key switch per NAF term (SEAL composes it).
  cost: (step, e) => ({
    work:
      rotationUnits(unitsOf(ROTATE_VECTOR_UNITS, e.scheme), e.rotationSwitches(step.steps)) * keySwitchScale(e.primes),
    scratch: KEY_SWITCH_SCRATCH,
  }),
  noise: () => ({}),
  plain: (step, e) => e.rotate(e.get(step.a), step.steps),
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    e.call(() => e.ctx.evaluator.rotateVector(a.value, step.steps, e.galoisKeys(), d))
    return cipherValue(d)
  },
  emitTs: (step, e) => [e.comment, e.ciphertext, `evaluator.rotateVector(${e.a}, ${step.steps}, galoisKeys, ${e.out})`],
  emitPy: (step, e) => [e.comment, `${e.out} = evaluator.rotate_vector(${e.a}, ${step.steps}, galois_keys)`],
}
