import { describe, expect, it } from 'vitest'
import { isPrime } from './isPrime.ts'

/** Trial division, the oracle for small values. */
function slowIsPrime(n: number): boolean {
  if (n < 2) return false
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false
  return true
}

describe('isPrime (deterministic Miller–Rabin below 2^64)', () => {
  it('agrees with trial division on every value below 20,000', () => {
    for (let n = 0; n < 20_000; n++) expect(isPrime(n), String(n)).toBe(slowIsPrime(n))
  })

  it('knows the primes SEAL and sealbox use', () => {
    for (const p of [65537, 1032193, 786433, 1_073_643_521, 2_147_352_577]) expect(isPrime(p), String(p)).toBe(true)
    // Largest primes below 2^53 and 2^60 and 2^64.
    expect(isPrime(2 ** 53 - 111)).toBe(true)
    expect(isPrime(2n ** 60n - 93n)).toBe(true)
    expect(isPrime(2n ** 64n - 59n)).toBe(true)
    // A prime ≡ 1 (mod 8192) near 2^50: what batching at n=4096 needs.
    expect(isPrime(1_125_899_906_826_241n)).toBe(true)
  })

  it('refuses Carmichael numbers and strong pseudoprimes to several bases', () => {
    for (const c of [561, 1105, 1729, 2465, 2821, 6601, 8911, 41041, 825265, 321197185]) {
      expect(isPrime(c), String(c)).toBe(false)
    }
    // Strong pseudoprimes: to base 2 (2047); to bases 2, 3 (1373653); to 2…7 (3215031751);
    // to 2…11 (2152302898747); to 2…13 (3474749660383); to 2…17 (341550071728321);
    // to 2…23 (3825123056546413051); to 2…37 (318665857834031151167461, above 2^64: refused).
    for (const c of [
      2047n,
      1373653n,
      3215031751n,
      2152302898747n,
      3474749660383n,
      341550071728321n,
      3825123056546413051n,
    ]) {
      expect(isPrime(c), String(c)).toBe(false)
    }
    expect(() => isPrime(318665857834031151167461n)).toThrow(RangeError)
  })

  it('refuses composites near 2^53 and 2^60 that trial division took seconds for', () => {
    // Products of two primes near 2^26.5 and 2^30: no small factor.
    const p = 94906249n
    const q = 94906247n
    expect(isPrime(p)).toBe(true)
    expect(isPrime(q)).toBe(true)
    expect(isPrime(p * q)).toBe(false)
    expect(isPrime(1073741789n * 1073741827n)).toBe(false)
    expect(isPrime(2 ** 53 - 1)).toBe(false) // 6361 × 69431 × 20394401
    expect(isPrime(2n ** 61n - 1n)).toBe(true) // a Mersenne prime
  })

  it('needs an integer', () => {
    expect(() => isPrime(1.5)).toThrow(RangeError)
    expect(() => isPrime(2 ** 60)).toThrow(RangeError)
  })
})
