/**
 * A "plain modulus" no sandbox result reaches: the plain oracle run with it computes over
 * the integers, so results that wrapped around the real t can be told apart.
 */
export const INTEGER_MODULUS = 2n ** 1024n

/** How many wrapped slots a comparison names by their exact value. */
export const WRAPS_SHOWN = 4

/** BFV/BGV results that wrapped around the plain modulus: right modulo t, not over the integers. */
export interface PlainWraps {
  /** Slots whose integer result differs from the result modulo t. */
  slots: number
  /** The integer results of the first wrapped slots, in slot order. */
  exact: bigint[]
}

/**
 * Compares the oracle's results modulo t with the same computation over the integers:
 * a slot wrapped when they differ. Undefined when nothing wrapped.
 */
export function plainWraps(modT: readonly bigint[], integers: readonly bigint[]): PlainWraps | undefined {
  let slots = 0
  const exact: bigint[] = []
  for (const [i, value] of integers.entries()) {
    if (value === modT[i]) continue
    slots++
    if (exact.length < WRAPS_SHOWN) exact.push(value)
  }
  return slots === 0 ? undefined : { slots, exact }
}
