import { requireSize2 } from '../stepOperands.ts'
import { sumElementsInto } from '../sumElements.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import { ALL_SCHEMES, CIPHER_A, opFacts, SUM_SCRATCH, sumKeys, sumSpend, sumWork } from './opKit.ts'
import { SUM_UNITS } from './sumUnits.ts'

/** Every slot becomes the sum of all slots (rotations and additions; node-seal 7 dropped SEAL's helper). */
export const sumElements: OpDefinition<'sumElements'> = {
  ...opFacts('Sum of all slots', [CIPHER_A], ALL_SCHEMES, 'every slot becomes the sum of all slots of a', {
    sumsSlots: true,
  }),
  analyze: (_step, e) => sumKeys(e, false),
  cost: (_step, e) => ({ work: sumWork(e, SUM_UNITS), scratch: SUM_SCRATCH }),
  noise: (_step, e) => (e.ckks ? {} : { budget: e.budget - sumSpend(e) }),
  plain: (step, e) => e.sum(e.get(step.a)),
  execute(step, e) {
    const a = e.cipher(step.a)
    requireSize2(e.frame, a)
    const d = e.out()
    sumElementsInto(e.ctx, a.value, e.galoisKeys(), d, e.label)
    return cipherValue(d)
  },
  emitTs: (_step, e) => [e.comment, e.ciphertext, `sumElements(${e.a}, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = sum_elements(${e.a})`],
}
