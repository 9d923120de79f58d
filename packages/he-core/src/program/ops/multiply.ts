import type { SchemeName } from '../../params/ParamsSpec.ts'
import { requireProductScale } from '../stepOperands.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherPair, cipherValue } from './opEvaluate.ts'
import {
  ALL_SCHEMES,
  CIPHER_A,
  CIPHER_B,
  noKeys,
  opFacts,
  productBudget,
  type SchemeUnits,
  scaleOf,
  sizeFactor,
  unitsOf,
} from './opKit.ts'

/** Cost units of ct × ct; BFV multiplies need a base extension (20–26 ms, 24× BGV's). */
export const MULTIPLY_UNITS: SchemeUnits = { bfv: 23, bgv: 1.2, ckks: 2 }

/**
 * Scratch of a ciphertext product: BFV extends both operands to a base about twice as
 * wide (BEHZ) and forms the tensor there; BGV and CKKS multiply in place.
 */
export function productScratch(scheme: SchemeName, a: number, b: number): number {
  return scheme === 'bfv' ? 2 * (a + b) + 2 * (a + b - 1) : a + b
}

/** ct × ct; the size grows to a.size + b.size − 1 (3 for fresh operands). */
export const multiply: OpDefinition<'multiply'> = {
  ...opFacts('Multiply', [CIPHER_A, CIPHER_B], ALL_SCHEMES, 'a × b (size 3: relinearize next)', { alignable: true }),
  analyze: noKeys,
  cost: (_step, e) => ({
    work: unitsOf(MULTIPLY_UNITS, e.scheme) * sizeFactor(e),
    out: { primes: e.primes, size: Math.max(2, e.a.size) + Math.max(2, e.b?.size ?? 2) - 1 },
    scratch: productScratch(e.scheme, Math.max(2, e.a.size), Math.max(2, e.b?.size ?? 2)),
  }),
  noise: (_step, e) =>
    e.ckks
      ? { scaleBits: scaleOf(e.a) + scaleOf(e.b) }
      : { budget: productBudget(e, 1, [e.a.budget ?? e.budget, e.b?.budget ?? e.budget]) },
  plain: (step, e) => e.mul(e.get(step.a), e.get(step.b)),
  execute(step, e) {
    const [x, y, level] = cipherPair(step, e, false)
    requireProductScale(e.frame, level, x.scale(), y.scale())
    const d = e.out()
    e.call(() => e.ctx.evaluator.multiply(x, y, d))
    return cipherValue(d)
  },
  emitTs(_step, e) {
    const p = e.pair(false)
    return [e.comment, e.ciphertext, ...e.withPair(p, [`evaluator.multiply(${p.x}, ${p.y}, ${e.out})`])]
  },
  emitPy(_step, e) {
    const p = e.pair(false)
    return [e.comment, ...p.setup, `${e.out} = evaluator.multiply(${p.x}, ${p.y})`]
  },
}
