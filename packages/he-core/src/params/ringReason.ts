import type { ParamsNeeds } from './ParamsNeeds.ts'

/**
 * The suggestion's first reason: why ring degree `n` (the smallest with the slots, and for
 * integer schemes a `plainBits`-bit batching prime, whose security budget of `max` bits
 * fits the `total`-bit coefficient modulus).
 */
export function ringReason(needs: ParamsNeeds, n: number, max: number, total: number, plainBits?: number): string {
  const slots = `${needs.slots} slot${needs.slots === 1 ? '' : 's'}`
  const prime = plainBits === undefined ? '' : ` and a ${plainBits}-bit batching prime`
  return `n = ${n}: the smallest ring with ${slots}${prime} whose ${needs.security} budget (${max} bits) fits the ${total}-bit coefficient modulus.`
}
