import type { OpDefinition } from './OpDefinition.ts'
import { levelDown } from './opEvaluate.ts'
import { CIPHER_A, CKKS_SCHEME, noKeys, opFacts, type SchemeUnits, samePlain, scaleOf, unitsOf } from './opKit.ts'

/** Cost units of a CKKS rescale. */
export const RESCALE_UNITS: SchemeUnits = { bfv: 0.1, ckks: 0.45 }

/** CKKS: divide by the last prime of the level (scale and level drop by one). */
export const rescaleToNext: OpDefinition<'rescaleToNext'> = {
  ...opFacts(
    'Rescale to next level',
    [CIPHER_A],
    CKKS_SCHEME,
    'a divided by its last prime: scale and level drop by one',
  ),
  analyze: noKeys,
  cost: (_step, e) => ({
    work: unitsOf(RESCALE_UNITS, e.scheme) * (e.a.size === 0 ? 0.5 : 1),
    out: { primes: Math.max(1, e.primes - 1), size: e.a.size },
  }),
  noise: (_step, e) =>
    e.ckks
      ? {
          exhausted: e.level === 0,
          scaleBits: scaleOf(e.a) - e.primeBits(e.level),
          level: Math.max(0, e.level - 1),
        }
      : {},
  plain: samePlain,
  execute: levelDown,
  emitTs: (_step, e) => [e.comment, e.ciphertext, `evaluator.rescaleToNext(${e.a}, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.rescale_to_next(${e.a})`],
}
