import { parseGaloisKeyWords, RingError, RnsKernel, sealDataWords } from '@sealbox/he-ring'
import { describe, expect, it } from 'vitest'
import { HeError } from '../src/errors/HeError.ts'
import { galoisElementOf } from '../src/keys/galoisElements.ts'
import { galoisKeyWordsOf } from '../src/keys/galoisKeyWordsOf.ts'
import { KeySet } from '../src/keys/KeySet.ts'
import { getHeContext } from '../src/params/ContextCache.ts'
import type { ParamsInput } from '../src/params/ParamsSpec.ts'
import { withScope } from '../src/scope/SealScope.ts'

/*
 * he-ring's kernels against SEAL itself: he-ring has no dependency on SEAL, so its own tests
 * check it against BigInt oracles; these check that its NTT form, rotations, mod switch and
 * key-word layout are SEAL's, word for word, with real keys and ciphertexts.
 */

const PARAMS: ParamsInput = {
  scheme: 'bgv',
  polyModulusDegree: 4096,
  coeffModulus: [27, 28, 28],
  plainModulus: { value: 65537 },
  security: 'tc128',
}

describe("he-ring's kernels against SEAL", () => {
  it("matches SEAL's NTT form and SEAL's rotation: the same decryption, noise budget within a bit", async () => {
    const ctx = await getHeContext(PARAMS)
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
    kernel.useKeys(galoisKeyWordsOf(ctx, keys.galoisKeys as never, elements))
    const encoder = ctx.batchEncoder
    if (!encoder) throw new HeError('INTERNAL', 'these parameters batch')
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
    const ctx = await getHeContext(PARAMS)
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const shape = { polyModulusDegree: 4096, keyPrimes: ctx.coeffPrimes }
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
      expect(() => parseGaloisKeyWords(shape, unreduced, [element])).toThrow(RingError)
      expect(() => parseGaloisKeyWords(shape, unreduced, [element])).toThrow(/at or above its prime \(word 0\)/)
    }
    const counted = saved.slice()
    new DataView(counted.buffer).setBigUint64(16 + 32 + 8 + 8, 5n, true)
    expect(() => parseGaloisKeyWords(shape, counted, [element])).toThrow(/5 components/)
    expect(() => parseGaloisKeyWords(shape, saved.subarray(0, 5000), [element])).toThrow(/truncated/)
    expect(() => parseGaloisKeyWords(shape, saved, [galoisElementOf(4096, 2)])).toThrow(/no Galois key/)
  })

  it('reads Galois keys through galoisKeyWordsOf as coded HeErrors, and caches them with the keys object', async () => {
    const ctx = await getHeContext(PARAMS)
    using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
    const element = galoisElementOf(4096, 1)
    const galoisKeys = keys.galoisKeys as never
    const words = galoisKeyWordsOf(ctx, galoisKeys, [element])
    expect(galoisKeyWordsOf(ctx, galoisKeys, [element])).toBe(words)
    const error = (() => {
      try {
        galoisKeyWordsOf(ctx, galoisKeys, [galoisElementOf(4096, 2)])
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(HeError.is(error, 'MISSING_KEY')).toBe(true)
    expect((error as HeError).details).toEqual({ missing: [galoisElementOf(4096, 2)] })
    expect((error as HeError).cause).toBeInstanceOf(RingError)
  })
})
