import { CKKS_NOISE_BITS } from './ckksAttempt.ts'
import { firstFit } from './firstFit.ts'
import { minPlainBits } from './modulusProblems.ts'
import type { ParamsNeeds } from './ParamsNeeds.ts'
import { POLY_MODULUS_DEGREES, PRIME_BITS_MAX, SCALE_BITS_MAX } from './ParamsSpec.ts'

// Whether needs can be met, by needs: refusals ask about their neighbours (other bit sizes,
// fewer multiplications) and a form re-asks on every keystroke. Booleans only, and reset
// when full, so it stays small.
const fitting = new Map<string, boolean>()
function fits(needs: ParamsNeeds): boolean {
  const key = `${needs.scheme}:${needs.security}:${needs.depth}:${needs.slots}:${needs.plainBits}:${needs.precisionBits}`
  let answer = fitting.get(key)
  if (answer === undefined) {
    if (fitting.size >= 100_000) fitting.clear()
    answer = !Array.isArray(firstFit(needs))
    fitting.set(key, answer)
  }
  return answer
}

/**
 * What would work instead, nearest first: other bit sizes (either way — fewer bits is
 * not always better, a batching prime of the size must exist), fewer multiplications,
 * a lower security level.
 */
export function alternativesTo(needs: ParamsNeeds): string[] {
  const ckks = needs.precisionBits !== undefined
  const asked = (ckks ? needs.precisionBits : needs.plainBits) ?? 0
  const withBits = (bits: number): ParamsNeeds =>
    ckks ? { ...needs, precisionBits: bits } : { ...needs, plainBits: bits }
  const lowest = ckks ? 1 : minPlainBits(POLY_MODULUS_DEGREES[0])
  const highest = ckks ? SCALE_BITS_MAX - CKKS_NOISE_BITS : PRIME_BITS_MAX
  const range = (from: number, to: number, step: number) =>
    Array.from({ length: Math.max(0, Math.floor((to - from) / step) + 1) }, (_, i) => from + i * step)
  const below = range(asked - 1, lowest, -1).find((bits) => fits(withBits(bits)))
  const above = range(asked + 1, highest, 1).find((bits) => fits(withBits(bits)))
  const sizes = [below, above].filter((bits): bits is number => bits !== undefined)
  const noun = ckks ? 'precision bits' : 'plaintext bits'
  const out: string[] = []
  if (sizes.length > 0) out.push(`${sizes.join(' or ')} ${noun}`)
  const depth = range(needs.depth - 1, 0, -1).find((d) => fits({ ...needs, depth: d }))
  if (depth !== undefined) out.push(`at most ${depth} multiplication${depth === 1 ? '' : 's'} in a row`)
  const order = ['tc128', 'tc192', 'tc256'] as const
  const level = order.slice(0, order.indexOf(needs.security)).find((security) => fits({ ...needs, security }))
  if (level) out.push(`security ${level}`)
  return out
}
