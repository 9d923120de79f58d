import { sumElementsInto } from '../sumElements.ts'
import { MULTIPLY_PLAIN_UNITS } from './multiplyPlain.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue, productWithPlain } from './opEvaluate.ts'
import {
  ALL_SCHEMES,
  CIPHER_A,
  opFacts,
  PLAIN_B,
  SUM_SCRATCH,
  scaleOf,
  sumKeys,
  sumSpend,
  sumWork,
  unitsOf,
} from './opKit.ts'
import { SUM_UNITS } from './sumUnits.ts'

/** Every slot becomes Σ aᵢpᵢ for a plaintext p: multiplyPlain, sum the slots. */
export const innerProductPlain: OpDefinition<'innerProductPlain'> = {
  ...opFacts(
    'Inner product with plaintext',
    [CIPHER_A, PLAIN_B],
    ALL_SCHEMES,
    'every slot becomes Σ aᵢbᵢ for plaintext b (multiplyPlain, sum)',
    {
      alignable: true,
      sumsSlots: true,
    },
  ),
  analyze: (_step, e) => sumKeys(e, false),
  cost: (_step, e) => ({
    work: unitsOf(MULTIPLY_PLAIN_UNITS, e.scheme) + sumWork(e, SUM_UNITS),
    scratch: 2 + SUM_SCRATCH,
  }),
  noise: (_step, e) =>
    e.ckks ? { scaleBits: scaleOf(e.a) + scaleOf(e.b) } : { budget: e.budget - e.plainSpend - sumSpend(e) },
  plain: (step, e) => e.sum(e.mul(e.get(step.a), e.get(step.b))),
  execute(step, e) {
    const [x, p] = productWithPlain(step, e, { size2: true })
    const product = e.scope.track(new e.ctx.seal.Ciphertext())
    e.frame.temporaries.push(product)
    e.call(() => e.ctx.evaluator.multiplyPlain(x, p, product))
    const d = e.out()
    sumElementsInto(e.ctx, product, e.galoisKeys(), d, e.label)
    return cipherValue(d)
  },
  emitTs(_step, e) {
    const p = e.pair(false)
    return [
      e.comment,
      e.ciphertext,
      ...e.block([
        ...p.setup,
        'const product = own(new seal.Ciphertext())',
        `evaluator.multiplyPlain(${p.x}, ${p.y}, product)`,
        `sumElements(product, ${e.out})`,
      ]),
    ]
  },
  emitPy(_step, e) {
    const p = e.pair(false)
    return [e.comment, ...p.setup, `${e.out} = sum_elements(evaluator.multiply_plain(${p.x}, ${p.y}))`]
  },
}
