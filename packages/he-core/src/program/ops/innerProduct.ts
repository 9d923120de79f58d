import { requireProductScale, requireRelinPowers } from '../stepOperands.ts'
import { sumElementsInto } from '../sumElements.ts'
import { MULTIPLY_UNITS, productScratch } from './multiply.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherPair, cipherValue } from './opEvaluate.ts'
import {
  ALL_SCHEMES,
  CIPHER_A,
  CIPHER_B,
  keySwitchScale,
  opFacts,
  productBudget,
  SUM_SCRATCH,
  scaleOf,
  sizeFactor,
  sumKeys,
  sumSpend,
  sumWork,
  unitsOf,
} from './opKit.ts'
import { RELINEARIZE_UNITS } from './relinearize.ts'
import { SUM_UNITS } from './sumUnits.ts'

/** Every slot becomes Σ aᵢbᵢ: multiply, relinearize, sum the slots. */
export const innerProduct: OpDefinition<'innerProduct'> = {
  ...opFacts(
    'Inner product',
    [CIPHER_A, CIPHER_B],
    ALL_SCHEMES,
    'every slot becomes Σ aᵢbᵢ (multiply, relinearize, sum)',
    {
      relin: true,
      alignable: true,
      sumsSlots: true,
    },
  ),
  analyze: (_step, e) => sumKeys(e, true),
  cost: (_step, e) => ({
    work:
      unitsOf(MULTIPLY_UNITS, e.scheme) * sizeFactor(e) +
      unitsOf(RELINEARIZE_UNITS, e.scheme) * keySwitchScale(e.primes) +
      sumWork(e, SUM_UNITS),
    out: { primes: e.primes, size: 2 },
    // The size-3 product lives while it is relinearized and summed.
    scratch: 3 + Math.max(productScratch(e.scheme, Math.max(2, e.a.size), Math.max(2, e.b?.size ?? 2)), SUM_SCRATCH),
  }),
  noise: (_step, e) =>
    e.ckks ? { scaleBits: scaleOf(e.a) + scaleOf(e.b) } : { budget: productBudget(e, 1) - sumSpend(e) },
  plain: (step, e) => e.sum(e.mul(e.get(step.a), e.get(step.b))),
  execute(step, e) {
    const [x, y, level] = cipherPair(step, e, false)
    requireProductScale(e.frame, level, x.scale(), y.scale())
    requireRelinPowers(e.frame, e.keys.relinKeys, step.out, x.size() + y.size() - 1)
    const product = e.scope.track(new e.ctx.seal.Ciphertext())
    e.frame.temporaries.push(product)
    e.call(() => {
      e.ctx.evaluator.multiply(x, y, product)
      e.ctx.evaluator.relinearizeInplace(product, e.relinKeys())
    })
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
        `evaluator.multiply(${p.x}, ${p.y}, product)`,
        'evaluator.relinearizeInplace(product, relinKeys)',
        `sumElements(product, ${e.out})`,
      ]),
    ]
  },
  emitPy(_step, e) {
    const p = e.pair(false)
    return [
      e.comment,
      ...p.setup,
      `product = evaluator.relinearize(evaluator.multiply(${p.x}, ${p.y}), relin_keys)`,
      `${e.out} = sum_elements(product)`,
    ]
  },
}
