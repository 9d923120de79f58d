import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileWat, wasmModuleSource } from '../../../scripts/compileWat.ts'
import { HeError } from '../../errors/HeError.ts'
import { galoisElementOf } from '../../keys/galoisElements.ts'
import { KeySet } from '../../keys/KeySet.ts'
import { getHeContext } from '../../params/ContextCache.ts'
import { withScope } from '../../scope/SealScope.ts'
import { galoisKeyWordsOf, parseGaloisKeyWords } from './galoisKeyWords.ts'
import { KEY_SWITCH_WASM } from './keySwitchWasm.ts'
import { RnsKernel } from './RnsKernel.ts'
import { galoisPermutation, modPow, reverseBits } from './rnsTables.ts'
import { sealDataWords } from './sealDataWords.ts'

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
    const x = modPow(psi, BigInt(2 * reverseBits(i, bits) + 1), p)
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
  const nInv = modPow(BigInt(n), p - 2n, p)
  return slots.map((_, k) => {
    let sum = 0n
    for (const [i, slot] of slots.entries()) {
      const x = modPow(psi, BigInt(2 * reverseBits(i, bits) + 1), p)
      sum = (sum + slot * modPow(modPow(x, BigInt(k), p), p - 2n, p)) % p
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
      const pInv = modPow(P, q - 2n, q)
      const out = (sums[i] as bigint[]).map((v, k) => {
        const r = special[k] as bigint
        const delta = mod(-r * modPow(P, t - 2n, t), t) * P + r
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

  it('transforms exactly like the NTT by definition, and back (BigInt oracle, n = 16, primes near 2^31)', () => {
    const kernel = new RnsKernel({
      polyModulusDegree: small.n,
      keyPrimes: small.primes,
      plainModulus: 65537n,
      galoisElements: [3, 31],
    })
    const next = lcg(7)
    const at = kernel.alloc(small.n)
    for (const [index, p] of small.primes.entries()) {
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
      expect(modPow(psi, BigInt(small.n), p)).toBe(p - 1n)
      expect(forward).toEqual(nttOracle(a, p, psi))
      kernel.words(at, small.n).set(forward.map(Number))
      kernel.intt(at, index)
      expect([...kernel.words(at, small.n)].map(BigInt)).toEqual(a)
      // The automorphism X → X^e is a permutation of NTT slots.
      for (const element of [3, 31, 9]) {
        const permuted = [...galoisPermutation(small.n, element)].map((k) => forward[k] as bigint)
        expect(permuted).toEqual(nttOracle(automorphismOracle(a, element, p), p, psi))
      }
    }
  })

  it('key-switches word for word like BGV key switching by definition, single and hoisted (BigInt oracle, n = 16)', () => {
    const { n, primes } = small
    const L = primes.length - 1
    const t = 65537n
    const elements = [3, 9, 31]
    const kernel = new RnsKernel({ polyModulusDegree: n, keyPrimes: primes, plainModulus: t, galoisElements: elements })
    const next = lcg(11)
    // ψ of each prime, read off the kernel's NTT of X (checked against the definition above).
    const psis = primes.map((_, index) => {
      const at = kernel.alloc(n)
      kernel.words(at, n).set(Array.from({ length: n }, (_, k) => (k === 1 ? 1 : 0)))
      kernel.ntt(at, index)
      return BigInt(kernel.words(at, 1)[0] as number)
    })
    // Any words below their primes: key switching is the same arithmetic whatever the key encrypts.
    const randomBelow = (p: bigint) => Array.from({ length: n }, () => mod((BigInt(next()) << 32n) | BigInt(next()), p))
    const keys = new Map<number, bigint[][][][]>()
    const words = new Map<number, Uint32Array>()
    for (const element of elements) {
      const key = Array.from({ length: L }, () => Array.from({ length: 2 }, () => primes.map((p) => randomBelow(p))))
      keys.set(element, key)
      words.set(element, Uint32Array.from(key.flat(3).map(Number)))
    }
    kernel.useKeys({ elements: words, bytes: 0 })
    const ciphertext = Array.from({ length: 2 * L }, (_, poly) => randomBelow(primes[poly % L] as bigint))
    // Edge words: 0 and p − 1 in the first polynomials.
    for (let poly = 0; poly < 2 * L; poly++) {
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
  })

  it("matches SEAL's NTT form and SEAL's rotation: the same decryption, noise budget within a bit", async () => {
    const ctx = await getHeContext({
      scheme: 'bgv',
      polyModulusDegree: 4096,
      coeffModulus: [27, 28, 28],
      plainModulus: { value: 65537 },
      security: 'tc128',
    })
    const n = 4096
    const L = ctx.facts.dataPrimeCount
    const steps = [1, 7, -3]
    const elements = steps.map((step) => galoisElementOf(n, step))
    using keys = KeySet.generate(ctx, { galois: { steps } })
    const kernel = new RnsKernel({
      polyModulusDegree: n,
      keyPrimes: ctx.coeffPrimes,
      plainModulus: ctx.plainModulus as bigint,
      galoisElements: elements,
    })
    const shape = { polyModulusDegree: n, keyPrimes: ctx.coeffPrimes, seal: ctx.seal }
    kernel.useKeys(galoisKeyWordsOf(shape, keys.galoisKeys as never, elements))
    const encoder = ctx.batchEncoder
    if (!encoder) throw new Error('batching')
    const values = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 65537) - 32768n)
    withScope((scope) => {
      // The NTT form of a plaintext: SEAL's transform and the kernel's agree word for word.
      const plain = scope.track(new ctx.seal.Plaintext())
      encoder.encode(values, plain)
      const coefficients = new BigUint64Array(
        sealDataWords(plain.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, n).slice().buffer,
      )
      const firstParms = scope.track(ctx.context.firstParmsId())
      const nttPlain = scope.track(new ctx.seal.Plaintext())
      encoder.encode(values, nttPlain)
      ctx.evaluator.plainTransformToNttInplace(nttPlain, firstParms)
      const sealNtt = new BigUint64Array(
        sealDataWords(nttPlain.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array, L * n).slice().buffer,
      )
      const at = kernel.alloc(n)
      for (let i = 0; i < L; i++) {
        // SEAL lifts a coefficient c ≥ (t + 1)/2 as the negative c − t (plain_upper_half_threshold).
        const q = ctx.coeffPrimes[i] as bigint
        const t = ctx.plainModulus as bigint
        kernel.words(at, n).set([...coefficients].map((c) => Number(c >= (t + 1n) / 2n ? c + q - t : c)))
        kernel.ntt(at, i)
        expect([...kernel.words(at, n)]).toEqual([...sealNtt.subarray(i * n, (i + 1) * n)].map(Number))
      }

      // Rotations: the kernel's key switch decrypts to SEAL's, with at least SEAL's noise budget − 1.
      const encryptor = scope.track(new ctx.seal.Encryptor(ctx.context, keys.publicKey))
      const decryptor = scope.track(new ctx.seal.Decryptor(ctx.context, keys.secretKey))
      const ct = scope.track(new ctx.seal.Ciphertext())
      encryptor.encrypt(plain, ct)
      const saved = ct.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
      const words = new BigUint64Array(sealDataWords(saved, 2 * L * n).slice().buffer)
      const src = kernel.alloc(2 * L * n)
      const dst = kernel.alloc(2 * L * n)
      kernel.words(src, 2 * L * n).set([...words].map(Number))
      const decrypt = (c: typeof ct) => {
        const p = scope.track(new ctx.seal.Plaintext())
        decryptor.decrypt(c, p)
        return encoder.decodeBigInt64(p) as BigInt64Array
      }
      const loadKernel = (at: number) => {
        const out = saved.slice()
        const residues = new BigUint64Array([...kernel.words(at, 2 * L * n)].map(BigInt))
        out.set(new Uint8Array(residues.buffer), out.byteLength - residues.byteLength)
        const mine = scope.track(new ctx.seal.Ciphertext())
        mine.loadFromArray(ctx.context, out)
        return mine
      }
      // Hoisted: one decomposition of src for every step (interleaved with single rotations,
      // which leave it intact).
      kernel.decompose(src)
      for (const [s, step] of steps.entries()) {
        const rotated = scope.track(new ctx.seal.Ciphertext())
        ctx.evaluator.rotateRows(ct, step, keys.galoisKeys as never, rotated)
        const sealBudget = decryptor.invariantNoiseBudget(rotated)
        for (const hoisted of [false, true]) {
          if (hoisted) kernel.rotateHoisted(dst, src, elements[s] as number)
          else kernel.rotate(dst, src, elements[s] as number)
          const mine = loadKernel(dst)
          expect(decrypt(mine)).toEqual(decrypt(rotated))
          const budget = decryptor.invariantNoiseBudget(mine)
          expect(budget).toBeGreaterThanOrEqual(sealBudget - 1)
          expect(budget).toBeGreaterThan(0)
        }
      }
      expect(() => kernel.rotateHoisted(dst, dst, elements[0] as number)).toThrow(/decompose\(src\) first/)

      // The mod switch to the last level: SEAL's own result, word for word.
      const switched = scope.track(new ctx.seal.Ciphertext())
      ctx.evaluator.cipherModSwitchTo(ct, scope.track(ctx.context.lastParmsId()), switched)
      const sealSwitched = switched.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
      const last = kernel.alloc(2 * (L - 1) * n)
      kernel.modSwitch(last, src)
      const lastWords = 2 * (L - 1) * n
      const expected = new BigUint64Array(sealDataWords(sealSwitched, lastWords).slice().buffer)
      expect([...kernel.words(last, lastWords)]).toEqual([...expected].map(Number))
    })
  })

  it('refuses key words SEAL would not have written (forged or unreduced) with a coded error', async () => {
    const ctx = await getHeContext({
      scheme: 'bgv',
      polyModulusDegree: 4096,
      coeffModulus: [27, 28, 28],
      plainModulus: { value: 65537 },
      security: 'tc128',
    })
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const shape = { polyModulusDegree: 4096, keyPrimes: ctx.coeffPrimes, seal: ctx.seal }
    const saved = (keys.galoisKeys as never as { saveToArray(m: unknown): Uint8Array }).saveToArray(
      ctx.seal.ComprModeType.none,
    )
    const element = galoisElementOf(4096, 1)
    expect(parseGaloisKeyWords(shape, saved, [element]).elements.get(element)?.length).toBe(2 * 2 * 3 * 4096)
    // SEAL keeps one slot per Galois index (element 3 is index 1, after index 0's empty
    // slot); the key's first residue follows its record's headers.
    const firstWord = 16 + 32 + 8 + 8 + 8 + 16 + 73 + 16 + 8
    const prime = ctx.coeffPrimes[0] as bigint
    for (const forged of [prime, prime + 5n, (1n << 40n) + 5n]) {
      const unreduced = saved.slice()
      new DataView(unreduced.buffer).setBigUint64(firstWord, forged, true)
      expect(() => parseGaloisKeyWords(shape, unreduced, [element])).toThrow(HeError)
      expect(() => parseGaloisKeyWords(shape, unreduced, [element])).toThrow(/at or above its prime \(word 0\)/)
    }
    const counted = saved.slice()
    new DataView(counted.buffer).setBigUint64(16 + 32 + 8 + 8, 5n, true)
    expect(() => parseGaloisKeyWords(shape, counted, [element])).toThrow(/5 components/)
    expect(() => parseGaloisKeyWords(shape, saved.subarray(0, 5000), [element])).toThrow(/truncated/)
    expect(() => parseGaloisKeyWords(shape, saved, [galoisElementOf(4096, 2)])).toThrow(/no Galois key/)
  })

  it('carries the bytes the .wat source compiles to (pnpm --filter @sealbox/he-core build:wasm)', async () => {
    const wat = fileURLToPath(new URL('./keySwitch.wat', import.meta.url))
    const bytes = await compileWat(readFileSync(wat, 'utf8'), 'keySwitch.wat')
    expect(wasmModuleSource('keySwitch.wat', bytes)).toContain(`'${KEY_SWITCH_WASM}'`)
  })
})
