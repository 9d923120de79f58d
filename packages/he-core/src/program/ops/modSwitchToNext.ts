import type { OpDefinition } from './OpDefinition.ts'
import { levelDown } from './opEvaluate.ts'
import { ALL_SCHEMES, EITHER_A, noKeys, opFacts, type SchemeUnits, samePlain, unitsOf } from './opKit.ts'

/** Cost units of dropping one prime of a ciphertext (a plaintext costs half). */
export const MOD_SWITCH_UNITS: SchemeUnits = { bfv: 0.1, bgv: 1, ckks: 0.1 }

/** One level down (one prime dropped, no rescaling), of a ciphertext or a CKKS plaintext. */
export const modSwitchToNext: OpDefinition<'modSwitchToNext'> = {
  ...opFacts('Mod-switch to next level', [EITHER_A], ALL_SCHEMES, 'a one level down (one prime dropped, no rescaling)'),
  analyze: noKeys,
  cost: (_step, e) => ({
    work: unitsOf(MOD_SWITCH_UNITS, e.scheme) * (e.a.size === 0 ? 0.5 : 1),
    out: { primes: Math.max(1, e.primes - 1), size: e.a.size },
  }),
  // The budget falls to the new level's ceiling if it was above it.
  noise(_step, e) {
    const level = Math.max(0, e.level - 1)
    const exhausted = e.level === 0
    return e.ckks ? { level, exhausted } : { level, exhausted, budget: Math.min(e.budget, e.ceiling(level)) }
  },
  plain: samePlain,
  execute: levelDown,
  emitTs: (step, e) =>
    e.kinds[step.a] === 'plaintext'
      ? [e.comment, e.plaintext, `evaluator.plainModSwitchToNext(${e.a}, ${e.out})`]
      : [e.comment, e.ciphertext, `evaluator.cipherModSwitchToNext(${e.a}, ${e.out})`],
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.mod_switch_to_next(${e.a})`],
}
