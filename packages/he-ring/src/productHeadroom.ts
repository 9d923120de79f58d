const U64_MAX = (1n << 64n) - 1n

/**
 * How many products of residues an unreduced 64-bit word can take on top of a reduced
 * one: the largest k with (p − 1) + k·(p − 1)² < 2^64 for every prime. 0 when a prime
 * is 2^32 or more (a single product overflows): a u64 accumulator does not apply.
 */
export function productHeadroom(primes: readonly bigint[]): number {
  let headroom = Number.POSITIVE_INFINITY
  for (const p of primes) {
    const square = (p - 1n) * (p - 1n)
    if (p >= 1n << 32n || square === 0n) return 0
    headroom = Math.min(headroom, Number((U64_MAX - (p - 1n)) / square))
  }
  return headroom === Number.POSITIVE_INFINITY ? 0 : headroom
}
