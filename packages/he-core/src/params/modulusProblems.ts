import { batchingPrimes, hasBatchingPrime } from './batchingPrimes.ts'
import { POLY_MODULUS_DEGREES, PRIME_BITS_MAX } from './ParamsSpec.ts'

/**
 * The fewest bits a batching plain modulus may have at ring degree `n`: a prime ≡ 1
 * (mod 2n) has more bits than 2n, and sealbox asks for one bit more than that, so the
 * smallest candidate 2n + 1 is never the only one. The one rule `parseParams` and
 * `suggestParams` both use.
 */
export function minPlainBits(n: number): number {
  return Math.ceil(Math.log2(2 * n)) + 2
}

/** Whether SEAL can make a `bits`-bit batching plain modulus at ring degree `n`. */
export function plainBitsFit(n: number, bits: number): boolean {
  return bits >= minPlainBits(n) && bits <= PRIME_BITS_MAX && hasBatchingPrime(n, bits)
}

function nearestFitting(n: number, bits: number): number[] {
  const below = Array.from({ length: bits - minPlainBits(n) }, (_, i) => bits - 1 - i).find((b) => plainBitsFit(n, b))
  const above = Array.from({ length: PRIME_BITS_MAX - bits }, (_, i) => bits + 1 + i).find((b) => plainBitsFit(n, b))
  return [below, above].filter((b): b is number => b !== undefined)
}

/**
 * Why SEAL cannot make a `bits`-bit batching plain modulus at ring degree `n` (out of
 * range, or no prime ≡ 1 mod 2n of exactly that size), naming the sizes and ring
 * degrees that would work; `undefined` when it can.
 */
export function plainBitsProblem(n: number, bits: number): string | undefined {
  const min = minPlainBits(n)
  if (bits < min || bits > PRIME_BITS_MAX) {
    return `${bits} bits is out of range; batching at n=${n} needs a prime ≡ 1 (mod ${2 * n}), so ${min}…${PRIME_BITS_MAX} bits`
  }
  if (hasBatchingPrime(n, bits)) return undefined
  const sizes = nearestFitting(n, bits)
  const rings = POLY_MODULUS_DEGREES.filter((m) => m !== n && plainBitsFit(m, bits))
  const alternatives = [
    sizes.length > 0 ? `${sizes.join(' or ')} bits at n=${n}` : undefined,
    rings.length > 0 ? `${bits} bits at n=${rings.join(', ')}` : undefined,
  ].filter(Boolean)
  return `no ${bits}-bit prime is ≡ 1 (mod ${2 * n}), which batching at n=${n} needs; ${alternatives.join(', or ')} would work`
}

/** A coefficient-modulus prime SEAL cannot make, by its index in the chain. */
export interface CoeffPrimeProblem {
  index: number
  message: string
}

/**
 * Whether SEAL's `CoeffModulus.Create(n, bits)` finds every prime (enough primes ≡ 1
 * mod 2n of each size) and, for BFV/BGV, none of them is the plain modulus itself:
 * `PlainModulus.Batching(n, b)` is the largest `b`-bit such prime, which is also the
 * first `b`-bit coefficient prime, and SEAL then refuses the pair as not coprime.
 * Sizes are assumed in range (checked before).
 */
export function coeffPrimesProblem(
  n: number,
  bits: readonly number[],
  plain?: { batchingBits: number } | { value: number },
): CoeffPrimeProblem | undefined {
  const counts = new Map<number, number>()
  for (const b of bits) counts.set(b, (counts.get(b) ?? 0) + 1)
  for (const [size, count] of counts) {
    const index = bits.indexOf(size)
    if (plain && 'batchingBits' in plain && plain.batchingBits === size) {
      return {
        index,
        message: `a ${size}-bit prime would be the ${size}-bit plain modulus itself (SEAL picks the same prime ≡ 1 mod ${2 * n}); use another size for one of them`,
      }
    }
    const primes = batchingPrimes(n, size, count)
    if (primes.length < count) {
      return {
        index,
        message: `only ${primes.length} prime${primes.length === 1 ? '' : 's'} ≡ 1 (mod ${2 * n}) ha${primes.length === 1 ? 's' : 've'} ${size} bits at n=${n}, and the chain asks for ${count}; use larger primes`,
      }
    }
    if (plain && 'value' in plain && primes.includes(BigInt(plain.value))) {
      return {
        index,
        message: `the plain modulus ${plain.value} is also a ${size}-bit coefficient prime (SEAL picks it); use another size or another plain modulus`,
      }
    }
  }
  return undefined
}
