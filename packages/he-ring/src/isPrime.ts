import { powMod } from './powMod.ts'

/**
 * The first 12 primes. Miller–Rabin with these bases is deterministic for every
 * n < 3.3·10^24 (Sorenson & Webster 2015), so for every 64-bit value: no composite
 * below 2^64 is a strong pseudoprime to all of them.
 */
const BASES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n] as const
const LIMIT = 2n ** 64n

/**
 * Exact primality of a value below 2^64, by deterministic Miller–Rabin: about 12
 * modular exponentiations (microseconds) where trial division needed up to 2^26
 * divisions near 2^53 — a second of event loop per request. Throws RangeError at
 * 2^64 or above (no deterministic base set is claimed there) and for non-integers.
 */
export function isPrime(value: bigint | number): boolean {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new RangeError(`isPrime needs a safe integer, got ${value}`)
  }
  const n = BigInt(value)
  if (n >= LIMIT) throw new RangeError('isPrime is exact below 2^64 only')
  if (n < 2n) return false
  for (const p of BASES) {
    if (n === p) return true
    if (n % p === 0n) return false
  }
  // n − 1 = d · 2^s with d odd.
  let d = n - 1n
  let s = 0
  while ((d & 1n) === 0n) {
    d >>= 1n
    s++
  }
  for (const a of BASES) {
    let x = powMod(a, d, n)
    if (x === 1n || x === n - 1n) continue
    let witness = true
    for (let r = 1; r < s; r++) {
      x = (x * x) % n
      if (x === n - 1n) {
        witness = false
        break
      }
    }
    if (witness) return false
  }
  return true
}
