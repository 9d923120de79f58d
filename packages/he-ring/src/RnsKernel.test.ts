import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileWat, unsharedVariant, wasmModuleSource } from '../scripts/compileWat.ts'
import { KEY_SWITCH_LOCAL_WASM, KEY_SWITCH_WASM } from './keySwitchWasm.ts'
import { powMod } from './powMod.ts'
import { RingError } from './RingError.ts'
import { RnsKernel } from './RnsKernel.ts'
import { galoisPermutation, reverseBits } from './rnsTables.ts'

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state
  }
}

/** NTT by definition: slot i = a(ψ^(2·bitrev(i) + 1)) mod p, ψ the kernel's (SEAL's) root. */
function nttOracle(a: bigint[], p: bigint, psi: bigint): bigint[] {
  const n = a.length
  const bits = Math.log2(n)
  return a.map((_, i) => {
    const x = powMod(psi, BigInt(2 * reverseBits(i, bits) + 1), p)
    let sum = 0n
    let power = 1n
    for (const coefficient of a) {
      sum = (sum + coefficient * power) % p
      power = (power * x) % p
    }
    return sum
  })
}

/** a(X^element) mod (X^n + 1, p). */
function automorphismOracle(a: bigint[], element: number, p: bigint): bigint[] {
  const n = a.length
  const out = new Array<bigint>(n).fill(0n)
  for (const [i, coefficient] of a.entries()) {
    const raw = (i * element) % (2 * n)
    if (raw < n) out[raw] = (out[raw] as bigint) + coefficient
    else out[raw - n] = (out[raw - n] as bigint) + p - coefficient
  }
  return out.map((v) => v % p)
}

/** The inverse of `nttOracle` by definition: a_k = n⁻¹ Σ_i slot_i · ψ^(−(2·bitrev(i) + 1)·k). */
function inttOracle(slots: bigint[], p: bigint, psi: bigint): bigint[] {
  const n = slots.length
  const bits = Math.log2(n)
  const nInv = powMod(BigInt(n), p - 2n, p)
  return slots.map((_, k) => {
    let sum = 0n
    for (const [i, slot] of slots.entries()) {
      const x = powMod(psi, BigInt(2 * reverseBits(i, bits) + 1), p)
      sum = (sum + slot * powMod(powMod(x, BigInt(k), p), p - 2n, p)) % p
    }
    return (sum * nInv) % p
  })
}

/** a·b mod (X^n + 1, p), schoolbook. */
function negacyclicProduct(a: bigint[], b: bigint[], p: bigint): bigint[] {
  const n = a.length
  const out = new Array<bigint>(n).fill(0n)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const term = (a[i] as bigint) * (b[j] as bigint)
      if (i + j < n) out[i + j] = (out[i + j] as bigint) + term
      else out[i + j - n] = (out[i + j - n] as bigint) - term
    }
  }
  return out.map((v) => ((v % p) + p) % p)
}

/** X → X^element over the integers (coefficients keep their sign). */
function integerAutomorphism(a: bigint[], element: number): bigint[] {
  const n = a.length
  const out = new Array<bigint>(n).fill(0n)
  for (const [i, coefficient] of a.entries()) {
    const raw = (i * element) % (2 * n)
    if (raw < n) out[raw] = coefficient
    else out[raw - n] = -coefficient
  }
  return out
}

const mod = (v: bigint, p: bigint) => ((v % p) + p) % p

/**
 * BGV Galois key switching by definition, in BigInt and coefficient form: the automorphism
 * of c0 and c1, c1's digits (its residues mod each data prime q_j, as integers), their
 * products with the key's polynomials at every key-level prime, and the mod-down by the
 * special prime P with δ = k·P + r_P, k = −r_P·P⁻¹ mod t. `hoisted`: the digits of c1 are
 * taken first and the automorphism applied to them (Halevi–Shoup) instead of to c1.
 * Ciphertext and key are NTT-form words as the kernel holds them; so is the result.
 */
function keySwitchOracle(
  primes: bigint[],
  t: bigint,
  psis: bigint[],
  ciphertext: bigint[][],
  key: bigint[][][][],
  element: number,
  hoisted: boolean,
): bigint[][] {
  const L = primes.length - 1
  const P = primes[L] as bigint
  const coefficients = ciphertext.map((slots, poly) =>
    inttOracle(slots, primes[poly % L] as bigint, psis[poly % L] as bigint),
  )
  const digits = Array.from({ length: L }, (_, j) => {
    const c1 = coefficients[L + j] as bigint[]
    return hoisted
      ? integerAutomorphism(c1, element)
      : integerAutomorphism(c1, element).map((v) => mod(v, primes[j] as bigint))
  })
  const result: bigint[][] = []
  for (let K = 0; K < 2; K++) {
    const sums = primes.map((p, i) => {
      let sum = new Array<bigint>(digits[0]?.length ?? 0).fill(0n)
      for (let j = 0; j < L; j++) {
        const keyCoefficients = inttOracle(key[j]?.[K]?.[i] as bigint[], p, psis[i] as bigint)
        const product = negacyclicProduct(
          (digits[j] as bigint[]).map((v) => mod(v, p)),
          keyCoefficients,
          p,
        )
        sum = sum.map((v, k) => (v + (product[k] as bigint)) % p)
      }
      return sum
    })
    const special = sums[L] as bigint[]
    for (let i = 0; i < L; i++) {
      const q = primes[i] as bigint
      const pInv = powMod(P, q - 2n, q)
      const out = (sums[i] as bigint[]).map((v, k) => {
        const r = special[k] as bigint
        const delta = mod(-r * powMod(P, t - 2n, t), t) * P + r
        return mod((v - delta) * pInv, q)
      })
      const own =
        K === 0
          ? integerAutomorphism(coefficients[i] as bigint[], element).map((v) => mod(v, q))
          : new Array<bigint>(out.length).fill(0n)
      result.push(
        nttOracle(
          out.map((v, k) => (v + (own[k] as bigint)) % q),
          q,
          psis[i] as bigint,
        ),
      )
    }
  }
  return result
}

describe('RnsKernel', () => {
  // Primes ≡ 1 mod 32 below 2^31 (n = 16), the largest possible for the kernel among them.
  const small = { n: 16, primes: [2147483489n, 2147483137n, 2147482817n] }
  // The largest such primes below 2^30: the transforms' lazy butterflies (values up to 4p) run at them.
  const lazy = { n: 16, primes: [1073741441n, 1073740609n, 1073739937n] }
  const primeSets = [
    { name: 'primes near 2^31', ...small },
    { name: 'primes near 2^30, lazy butterflies', ...lazy },
  ]

  it.each(primeSets)(
    'transforms exactly like the NTT by definition, and back (BigInt oracle, n = 16, $name)',
    (set) => {
      const small = set
      const kernel = new RnsKernel({
        polyModulusDegree: small.n,
        keyPrimes: small.primes,
        plainModulus: 65537n,
        galoisElements: [3, 31],
      })
      const next = lcg(7)
      const at = kernel.alloc(small.n)
      for (const [index, p] of small.primes.entries()) {
        // Every word p − 1 (the largest sums between lazy stages), then random words with edges.
        const top = Array.from({ length: small.n }, () => p - 1n)
        kernel.words(at, small.n).set(top.map(Number))
        kernel.ntt(at, index)
        const topForward = [...kernel.words(at, small.n)].map(BigInt)
        const a = Array.from({ length: small.n }, (_, i) => (i === 0 ? p - 1n : BigInt(next()) % p))
        kernel.words(at, small.n).set(a.map(Number))
        kernel.ntt(at, index)
        const forward = [...kernel.words(at, small.n)].map(BigInt)
        // ψ: the NTT of X is ψ^(2·bitrev(i)+1); slot 0 holds ψ itself.
        const x = new Array<bigint>(small.n).fill(0n)
        x[1] = 1n
        kernel.words(at, small.n).set(x.map(Number))
        kernel.ntt(at, index)
        const psi = BigInt(kernel.words(at, 1)[0] as number)
        expect(powMod(psi, BigInt(small.n), p)).toBe(p - 1n)
        expect(forward).toEqual(nttOracle(a, p, psi))
        expect(topForward).toEqual(nttOracle(top, p, psi))
        kernel.words(at, small.n).set(topForward.map(Number))
        kernel.intt(at, index)
        expect([...kernel.words(at, small.n)].map(BigInt)).toEqual(top)
        kernel.words(at, small.n).set(forward.map(Number))
        kernel.intt(at, index)
        expect([...kernel.words(at, small.n)].map(BigInt)).toEqual(a)
        // The automorphism X → X^e is a permutation of NTT slots.
        for (const element of [3, 31, 9]) {
          const permuted = [...galoisPermutation(small.n, element)].map((k) => forward[k] as bigint)
          expect(permuted).toEqual(nttOracle(automorphismOracle(a, element, p), p, psi))
        }
      }
    },
  )

  it.each([
    ...primeSets,
    // Five data primes near 2^31: five digit products pass a u64 word's headroom (4), so
    // a rotation's key products fold their partial sum once.
    {
      name: 'five data primes near 2^31',
      n: 16,
      primes: [2147483489n, 2147483137n, 2147482817n, 2147482273n, 2147482081n, 2147481793n],
    },
    // The same with every key word p − 1 and c1 the constant p_j − 1 (in NTT form, so every
    // digit is p_j − 1 lifted): each digit × key product is near 2^62, five overflow a u64 word.
    {
      name: 'five data primes near 2^31, largest digits and keys',
      n: 16,
      primes: [2147483489n, 2147483137n, 2147482817n, 2147482273n, 2147482081n, 2147481793n],
      largest: true,
    },
  ] as { name: string; n: number; primes: bigint[]; largest?: boolean }[])(
    'key-switches word for word like BGV key switching by definition, single and hoisted (BigInt oracle, n = 16, $name)',
    ({ n, primes, largest }) => {
      const L = primes.length - 1
      const t = 65537n
      const elements = [3, 9, 31]
      const kernel = new RnsKernel({
        polyModulusDegree: n,
        keyPrimes: primes,
        plainModulus: t,
        galoisElements: elements,
      })
      const next = lcg(11)
      // ψ of each prime, read off the kernel's NTT of X (checked against the definition above).
      const psis = primes.map((_, index) => {
        const at = kernel.alloc(n)
        kernel.words(at, n).set(Array.from({ length: n }, (_, k) => (k === 1 ? 1 : 0)))
        kernel.ntt(at, index)
        return BigInt(kernel.words(at, 1)[0] as number)
      })
      // Any words below their primes: key switching is the same arithmetic whatever the key encrypts.
      const randomBelow = (p: bigint) =>
        Array.from({ length: n }, () => mod((BigInt(next()) << 32n) | BigInt(next()), p))
      const keys = new Map<number, bigint[][][][]>()
      const words = new Map<number, Uint32Array>()
      for (const element of elements) {
        const key = Array.from({ length: L }, () =>
          Array.from({ length: 2 }, () =>
            primes.map((p) => (largest ? new Array<bigint>(n).fill(p - 1n) : randomBelow(p))),
          ),
        )
        keys.set(element, key)
        words.set(element, Uint32Array.from(key.flat(3).map(Number)))
      }
      kernel.useKeys({ elements: words, bytes: 0 })
      const ciphertext = Array.from({ length: 2 * L }, (_, poly) => randomBelow(primes[poly % L] as bigint))
      if (largest) for (let j = 0; j < L; j++) ciphertext[L + j] = new Array<bigint>(n).fill((primes[j] as bigint) - 1n)
      // Edge words: 0 and p − 1 in the first polynomials.
      for (let poly = 0; poly < (largest ? L : 2 * L); poly++) {
        ;(ciphertext[poly] as bigint[])[0] = (primes[poly % L] as bigint) - 1n
        ;(ciphertext[poly] as bigint[])[1] = 0n
      }
      const words2L = 2 * L * n
      const src = kernel.alloc(words2L)
      const dst = kernel.alloc(words2L)
      kernel.words(src, words2L).set(ciphertext.flat().map(Number))
      kernel.decompose(src)
      for (const element of elements) {
        for (const hoisted of [false, true]) {
          if (hoisted) kernel.rotateHoisted(dst, src, element)
          else kernel.rotate(dst, src, element)
          const expected = keySwitchOracle(
            primes,
            t,
            psis,
            ciphertext,
            keys.get(element) as bigint[][][][],
            element,
            hoisted,
          )
          expect([...kernel.words(dst, words2L)].map(BigInt)).toEqual(expected.flat())
        }
      }
    },
  )

  // Products of residues near 2^31 overflow a u64 word after 4 terms (7 terms fold once),
  // near 2^30 after 16 (40 fold twice).
  it.each([
    { name: 'primes near 2^31', terms: 7, ...small },
    { name: 'primes near 2^30', terms: 40, ...lazy },
  ])(
    'sums $terms ciphertext × plaintext products and adds ciphertexts exactly (BigInt oracle, past the u64 headroom, $name)',
    ({ n, primes, terms }) => {
      const L = primes.length - 1
      const kernel = new RnsKernel({
        polyModulusDegree: n,
        keyPrimes: primes,
        plainModulus: 65537n,
        galoisElements: [],
      })
      const next = lcg(23)
      const below = (w: number) => {
        const p = primes[Math.floor(w / n) % L] as bigint
        return w % 5 === 0 ? p - 1n : mod(BigInt(next()), p)
      }
      const words = kernel.ciphertextWords
      const ciphertexts = Array.from({ length: terms }, () => Array.from({ length: words }, (_, w) => below(w)))
      const plaintexts = Array.from({ length: terms }, () => Array.from({ length: L * n }, (_, w) => below(w)))
      const cipherAt = ciphertexts.map((c) => {
        const at = kernel.alloc(words)
        kernel.words(at, words).set(c.map(Number))
        return at
      })
      const plainAt = plaintexts.map((p) => {
        const at = kernel.diagonals.alloc(L * n)
        kernel.diagonals.words(at, L * n).set(p.map(Number))
        return at
      })
      const target = kernel.alloc(words)
      kernel.innerProduct(target, cipherAt, plainAt)
      const expected = Array.from({ length: words }, (_, w) => {
        const p = primes[Math.floor(w / n) % L] as bigint
        let sum = 0n
        for (let a = 0; a < terms; a++)
          sum += (ciphertexts[a]?.[w] as bigint) * (plaintexts[a]?.[w % (L * n)] as bigint)
        return sum % p
      })
      expect([...kernel.words(target, words)].map(BigInt)).toEqual(expected)
      kernel.addCiphertext(target, cipherAt[0] as number)
      const added = expected.map((v, w) =>
        mod(v + (ciphertexts[0]?.[w] as bigint), primes[Math.floor(w / n) % L] as bigint),
      )
      expect([...kernel.words(target, words)].map(BigInt)).toEqual(added)
      expect(() => kernel.innerProduct(target, cipherAt.slice(0, 2), plainAt)).toThrow(RingError)
    },
  )

  it('refuses what it cannot run with coded RingErrors', () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn()
      } catch (error) {
        return error
      }
      return undefined
    }
    const shape = { polyModulusDegree: 16, keyPrimes: small.primes, plainModulus: 65537n, galoisElements: [3] }
    // A prime of 2^31 or more, or no special prime: the Shoup products would overflow / nothing to switch to.
    expect(
      RingError.is(
        refusal(() => new RnsKernel({ ...shape, keyPrimes: [4294967291n, 2147483137n] })),
        'INVALID_PARAMS',
      ),
    ).toBe(true)
    expect(
      RingError.is(
        refusal(() => new RnsKernel({ ...shape, keyPrimes: [2147483137n] })),
        'INVALID_PARAMS',
      ),
    ).toBe(true)
    // A prime that is not 1 mod 2n has no negacyclic NTT.
    expect(
      RingError.is(
        refusal(() => new RnsKernel({ ...shape, keyPrimes: [65537n, 2147483647n] })),
        'INVALID_PARAMS',
      ),
    ).toBe(true)
    const kernel = new RnsKernel(shape)
    const at = kernel.alloc(kernel.ciphertextWords)
    const missing = refusal(() => kernel.useKeys({ elements: new Map(), bytes: 0 }))
    expect(RingError.is(missing, 'MISSING_KEY')).toBe(true)
    expect((missing as RingError).details).toEqual({ element: 3 })
    expect(
      RingError.is(
        refusal(() => kernel.rotate(at, at, 3)),
        'INTERNAL',
      ),
    ).toBe(true)
    expect(
      RingError.is(
        refusal(() => kernel.rotateHoisted(at, at, 3)),
        'INTERNAL',
      ),
    ).toBe(true)
  })

  it('carries the bytes the .wat source compiles to (pnpm --filter @sealbox/he-ring build:wasm)', async () => {
    const wat = fileURLToPath(new URL('./keySwitch.wat', import.meta.url))
    const text = readFileSync(wat, 'utf8')
    const bytes = await compileWat(text, 'keySwitch.wat')
    const local = await compileWat(unsharedVariant(text), 'keySwitch.wat')
    const source = wasmModuleSource('keySwitch.wat', bytes, { local })
    expect(source).toContain(`'${KEY_SWITCH_WASM}'`)
    expect(source).toContain(`'${KEY_SWITCH_LOCAL_WASM}'`)
  })
})
