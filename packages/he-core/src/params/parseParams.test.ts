import { isPrime } from '@sealbox/he-ring'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { getHeContext } from './ContextCache.ts'
import { describeParams } from './describeParams.ts'
import { parseParams } from './parseParams.ts'

function reason(input: unknown, options = {}): string {
  try {
    parseParams(input, options)
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('INVALID_PARAMS')
    return (error as HeError).message
  }
  expect.unreachable('expected INVALID_PARAMS')
}

describe('parseParams', () => {
  it('resolves defaults for BFV, BGV and CKKS', () => {
    expect(parseParams({ scheme: 'bfv', polyModulusDegree: 4096 })).toEqual({
      scheme: 'bfv',
      polyModulusDegree: 4096,
      coeffModulusBits: [36, 36, 37],
      plainModulus: { batchingBits: 20 },
      scaleBits: undefined,
      security: 'tc128',
    })
    expect(parseParams({ scheme: 'bgv', polyModulusDegree: 8192, security: 'tc192' }).coeffModulusBits).toEqual([
      38, 38, 38, 38,
    ])
    const ckks = parseParams({ scheme: 'ckks', polyModulusDegree: 8192 })
    expect(ckks.coeffModulusBits).toEqual([60, 40, 40, 60])
    expect(ckks.scaleBits).toBe(40)
  })

  it('names the field and the limit for every rule', () => {
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: [60, 60, 60, 38] })).toBe(
      'coeffModulus: coeff modulus totals 218 bits; n=4096 at tc128 allows at most 109',
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 3000 })).toMatch(/^polyModulusDegree: 3000 is not supported/)
    expect(reason({ scheme: 'rsa', polyModulusDegree: 4096 })).toMatch(/^scheme:/)
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: [36, 61] })).toMatch(
      /^coeffModulus\[1\]: 61-bit prime is out of range/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: [10, 36] })).toMatch(/^coeffModulus\[0\]/)
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 14 } })).toMatch(
      /^plainModulus.batchingBits: 14 bits is out of range/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 1000 } })).toMatch(
      /1000 is not a prime ≡ 1 \(mod 8192\)/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 1024 })).toMatch(/leaves no noise budget/)
    expect(reason({ scheme: 'ckks', polyModulusDegree: 8192, plainModulus: { batchingBits: 20 } })).toMatch(
      /CKKS has no plain modulus/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, scaleBits: 20 })).toMatch(/BFV has no scale/)
    expect(reason({ scheme: 'ckks', polyModulusDegree: 8192, scaleBits: 200 })).toMatch(
      /^scaleBits: scaleBits is at most 60/,
    )
    expect(reason({ scheme: 'ckks', polyModulusDegree: 8192, coeffModulus: [30, 30], scaleBits: 40 })).toMatch(
      /scale 2\^40 does not fit/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, security: 'none' })).toMatch(/^security: 'none'/)
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, extra: 1 })).toMatch(/Unrecognized key/)
    expect(reason('not an object')).toMatch(/^params:/)
  })

  it('refuses expensive or ambiguous numbers in the spec itself (zod), naming the field', () => {
    // A fractional scale used to build a new context per request (2.6 s and ~60 MB each at n=16384).
    expect(reason({ scheme: 'ckks', polyModulusDegree: 16384, scaleBits: 40.001 })).toMatch(
      /^scaleBits: scaleBits is a whole number of bits/,
    )
    expect(reason({ scheme: 'ckks', polyModulusDegree: 8192, scaleBits: 0 })).toMatch(
      /^scaleBits: scaleBits is at least 1/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096.5 })).toMatch(/^polyModulusDegree:/)
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: [36, 36.5] })).toMatch(
      /^coeffModulus\[1\]: prime bit sizes are whole numbers/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: Array(65).fill(30) })).toMatch(
      /^coeffModulus: SEAL allows at most 64 primes/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 2 ** 60 } })).toMatch(
      /^plainModulus.value: the plain modulus must be below 2\^53/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 65537.5 } })).toMatch(
      /^plainModulus.value: the plain modulus is a whole number/,
    )
    expect(reason({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 61 } })).toMatch(
      /^plainModulus.batchingBits: 61-bit prime is out of range/,
    )
  })

  it('tests a plain modulus near 2^53 by Miller–Rabin, not trial division', () => {
    // Candidates ≡ 1 (mod 8192) just below 2^53: the largest prime among them, and a composite.
    const candidates = Array.from({ length: 200 }, (_, k) => 2 ** 53 - 8191 - 8192 * k)
    const prime = candidates.find((t) => isPrime(t)) as number
    const composite = candidates.find((t) => !isPrime(t)) as number
    expect(prime % 8192).toBe(1)
    const params = (value: number) => ({
      scheme: 'bfv',
      polyModulusDegree: 4096,
      coeffModulus: [36, 36, 37],
      plainModulus: { value },
    })
    expect(parseParams(params(prime)).plainModulus).toEqual({ value: prime })
    expect(reason(params(composite))).toMatch(/is not a prime ≡ 1 \(mod 8192\)/)
  })

  it('refuses a batching size with no prime ≡ 1 (mod 2n), naming sizes and rings that have one', () => {
    // 2n = 16384: 32769 and 49153 are the only 16-bit candidates, and neither is prime.
    expect(
      reason({
        scheme: 'bfv',
        polyModulusDegree: 8192,
        coeffModulus: [43, 43, 44],
        plainModulus: { batchingBits: 16 },
      }),
    ).toBe(
      'plainModulus.batchingBits: no 16-bit prime is ≡ 1 (mod 16384), which batching at n=8192 needs; 17 bits at n=8192, or 16 bits at n=1024, 2048, 4096 would work',
    )
    expect(() =>
      parseParams({
        scheme: 'bfv',
        polyModulusDegree: 8192,
        coeffModulus: [43, 43, 44],
        plainModulus: { batchingBits: 17 },
      }),
    ).not.toThrow()
  })

  it('refuses coefficient primes SEAL cannot make: too few of a size, or the plain modulus itself', () => {
    // 21-bit primes ≡ 1 (mod 65536): only a handful between 2^20 and 2^21.
    expect(
      reason({
        scheme: 'ckks',
        polyModulusDegree: 32768,
        coeffModulus: [60, ...Array(20).fill(21), 60],
        scaleBits: 21,
      }),
    ).toMatch(
      /^coeffModulus\[1\]: only \d primes? ≡ 1 \(mod 65536\) ha(s|ve) 21 bits at n=32768, and the chain asks for 20/,
    )
    expect(
      reason({
        scheme: 'bfv',
        polyModulusDegree: 4096,
        coeffModulus: [36, 20, 37],
        plainModulus: { batchingBits: 20 },
      }),
    ).toMatch(/^coeffModulus\[1\]: a 20-bit prime would be the 20-bit plain modulus itself/)
  })

  it('accepts security none only when asked', () => {
    expect(
      parseParams({ scheme: 'bfv', polyModulusDegree: 4096, security: 'none' }, { allowInsecure: true }).security,
    ).toBe('none')
  })
})

describe('describeParams', () => {
  it('derives slots, levels and sizes', () => {
    const facts = describeParams(parseParams({ scheme: 'bfv', polyModulusDegree: 4096 }))
    expect(facts).toMatchObject({ slotCount: 4096, rowSize: 2048, totalBits: 109, maxBits: 109, levels: 1 })
    expect(facts.keySwitching).toBe(true)
    // NODE-SEAL-FACTS.md §6 measured sizes (uncompressed) at n=4096.
    expect(facts.sizes.ciphertext).toBe(131_185)
    expect(facts.sizes.ciphertextLastLevel).toBe(65_649)
    expect(facts.sizes.publicKey).toBe(196_721)
    expect(Math.abs(facts.sizes.relinKeys - 393_506) / 393_506).toBeLessThan(0.01)
    const ckks = describeParams(parseParams({ scheme: 'ckks', polyModulusDegree: 16384 }))
    expect(ckks.slotCount).toBe(8192)
    expect(ckks.warnings.join(' ')).toMatch(/Galois keys are large/)
    expect(describeParams(parseParams({ scheme: 'bfv', polyModulusDegree: 2048 })).keySwitching).toBe(false)
  })
})

describe('HeContext', () => {
  it('builds, caches and fingerprints contexts for all schemes', async () => {
    for (const scheme of ['bfv', 'bgv', 'ckks'] as const) {
      const a = await getHeContext({ scheme, polyModulusDegree: 4096 })
      const b = await getHeContext({
        scheme,
        polyModulusDegree: 4096,
        coeffModulus: a.params.coeffModulusBits,
        ...(a.params.scaleBits ? { scaleBits: a.params.scaleBits } : {}),
      })
      expect(b).toBe(a)
      expect(a.fingerprint).toMatch(/^[0-9a-f]{32}$/)
      expect(a.context.parametersSet()).toBe(true)
      expect(a.topLevel).toBe(1)
    }
    const bfv = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
    expect(bfv.plainModulus).toBe(1032193n)
    // The fingerprint is a pure function of the parameters: this value is part of the wire format.
    expect(bfv.fingerprint).toMatchInlineSnapshot(`"1334d717613f11ed43e85ccf68775c17"`)
    const other = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 65537 } })
    expect(other.fingerprint).not.toBe(bfv.fingerprint)
  })
})
