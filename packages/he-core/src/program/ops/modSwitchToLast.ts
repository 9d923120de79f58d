import { deleteSealObject } from '../../seal/sealOutOfMemory.ts'
import { levelOf } from '../stepOperands.ts'
import { MOD_SWITCH_UNITS } from './modSwitchToNext.ts'
import type { OpDefinition } from './OpDefinition.ts'
import { cipherValue } from './opEvaluate.ts'
import { ALL_SCHEMES, EITHER_A, noKeys, opFacts, samePlain, unitsOf } from './opKit.ts'

/** Down to the last level (the smallest ciphertext to send back), of a ciphertext or a CKKS plaintext. */
export const modSwitchToLast: OpDefinition<'modSwitchToLast'> = {
  ...opFacts('Mod-switch to last level', [EITHER_A], ALL_SCHEMES, 'a at the last level (smallest ciphertext)'),
  analyze: noKeys,
  // One switch per level dropped, each at a smaller level than the last.
  cost: (_step, e) => ({
    work: unitsOf(MOD_SWITCH_UNITS, e.scheme) * Math.max(0, e.primes - 1) * (e.a.size === 0 ? 0.5 : 1),
    out: { primes: 1, size: e.a.size },
  }),
  noise: (_step, e) => (e.ckks ? { level: 0 } : { level: 0, budget: Math.min(e.budget, e.ceiling(0)) }),
  plain: samePlain,
  execute(step, e) {
    const { ctx, scope } = e
    const ev = ctx.evaluator
    const source = e.lookup(step.a)
    levelOf(e.frame, source.value, step.a)
    const last = ctx.context.lastParmsId()
    try {
      if (source.kind === 'plaintext') {
        const d = scope.track(new ctx.seal.Plaintext())
        e.call(() => ev.plainModSwitchTo(source.value, last, d))
        return { kind: 'plaintext', value: d }
      }
      const d = e.out()
      e.call(() => ev.cipherModSwitchTo(source.value, last, d))
      return cipherValue(d)
    } finally {
      deleteSealObject(last)
    }
  },
  emitTs(step, e) {
    const isPlain = e.kinds[step.a] === 'plaintext'
    return [
      e.comment,
      isPlain ? e.plaintext : e.ciphertext,
      ...e.block([
        'const lastLevel = own(context.lastParmsId())',
        `evaluator.${isPlain ? 'plainModSwitchTo' : 'cipherModSwitchTo'}(${e.a}, lastLevel, ${e.out})`,
      ]),
    ]
  },
  emitPy: (_step, e) => [e.comment, `${e.out} = evaluator.mod_switch_to(${e.a}, context.last_parms_id())`],
}
