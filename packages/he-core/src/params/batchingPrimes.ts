import { isPrime } from '@sealbox/he-ring'

interface PrimeSearch {
  found: bigint[]
  /** The next candidate to test; below `lowerBound` when every candidate has been tested. */
  next: bigint
  lowerBound: bigint
}

// Keyed `${n}:${bits}`; at most 6 × 59 entries, each a few primes, so never evicted.
const searches = new Map<string, PrimeSearch>()

/**
 * The `count` largest primes ≡ 1 (mod 2n) with exactly `bits` bits, largest first — the
 * primes SEAL's `CoeffModulus.Create(n, [bits, …])` picks, in its order, and whose first
 * is `PlainModulus.Batching(n, bits)`. Fewer than `count` when fewer exist (SEAL then
 * throws "failed to find enough qualifying primes"). Memoised per (n, bits): the search
 * resumes where it stopped, so asking on every keystroke is cheap.
 */
export function batchingPrimes(n: number, bits: number, count: number): bigint[] {
  if (!Number.isInteger(bits) || bits < 2 || bits > 62 || !Number.isInteger(n) || n < 1) return []
  const key = `${n}:${bits}`
  const factor = 2n * BigInt(n)
  let search = searches.get(key)
  if (!search) {
    // SEAL's get_primes: start at the largest value ≡ 1 (mod 2n) below 2^bits and step
    // down by 2n while the value still has `bits` bits.
    search = { found: [], next: (1n << BigInt(bits)) - factor + 1n, lowerBound: 1n << BigInt(bits - 1) }
    searches.set(key, search)
  }
  while (search.found.length < count && search.next > search.lowerBound) {
    if (isPrime(search.next)) search.found.push(search.next)
    search.next -= factor
  }
  return search.found.slice(0, count)
}

/** Whether a batching prime (≡ 1 mod 2n) of exactly `bits` bits exists at ring degree `n`. */
export function hasBatchingPrime(n: number, bits: number): boolean {
  return batchingPrimes(n, bits, 1).length === 1
}
