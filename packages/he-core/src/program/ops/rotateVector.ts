import { requireSize2 } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import { CIPHER_A, CKKS_SCHEME, opFacts, rotationKeys, type SchemeUnits, weightedCost } from './opKit.ts'

/** Cost units of one CKKS vector rotation (one key switch). */
export const ROTATE_VECTOR_UNITS: SchemeUnits = { ckks: 1.8 }

/** CKKS: the slot vector rotated left by `steps` (negative: right). */
export const rotateVector: OpDefinition<'rotateVector'> = {
  ...opFacts([CIPHER_A], CKKS_SCHEME, 'a with its slots rotated left by steps (negative: right)'),
  analyze: rotationKeys,
  cost: weightedCost(ROTATE_VECTOR_UNITS),
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
