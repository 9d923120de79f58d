import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import { loadSealObject } from './loadSealObject.ts'
import { checkPackedLayout, packedCiphertextBytes } from './packedCiphertext.ts'
import { packSealCiphertext, unpackSealCiphertext } from './packSealCiphertext.ts'

/*
 * The packed layout's dropped-bits fields (bytes 7 and 12): a response restored from its high
 * bits decrypts to the same values, and every hostile value is a coded error before SEAL.
 */

type Scheme = 'bgv' | 'bfv'
const contexts = {} as Record<Scheme, HeContext>
const keys = {} as Record<Scheme, KeySet>
const N = 4096

beforeAll(async () => {
  for (const scheme of ['bgv', 'bfv'] as const) {
    contexts[scheme] = await getHeContext({
      scheme,
      polyModulusDegree: N,
      coeffModulus: [27, 28, 28],
      plainModulus: { value: 65537 },
    })
    keys[scheme] = KeySet.generate(contexts[scheme], {})
  }
})
afterAll(() => {
  for (const set of Object.values(keys)) set.dispose()
})

const values = BigInt64Array.from({ length: N }, (_, i) => BigInt((i * 7919) % 65537) - 32768n)

/** A fresh ciphertext switched to the last prime, saved in NTT form (BGV's own) and in coefficient form; and a seeded save. */
function saves(scheme: Scheme): { ntt: Uint8Array; coefficients: Uint8Array; seeded: Uint8Array } {
  const ctx = contexts[scheme]
  const none = ctx.seal.ComprModeType.none
  return withScope((scope) => {
    const plaintext = scope.track(new ctx.seal.Plaintext())
    ctx.batchEncoder?.encode(values, plaintext)
    const seeded = scope.track(keys[scheme].encryptor.encryptSymmetricSerializable(plaintext)).saveToArray(none)
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    keys[scheme].encryptor.encryptSymmetric(plaintext, ciphertext)
    ctx.evaluator.cipherModSwitchToInplace(ciphertext, scope.track(ctx.context.lastParmsId()))
    const ntt = ciphertext.saveToArray(none) as Uint8Array
    if (ciphertext.isNttForm()) ctx.evaluator.cipherTransformFromNttInplace(ciphertext)
    return { ntt, coefficients: ciphertext.saveToArray(none) as Uint8Array, seeded: seeded as Uint8Array }
  })
}

function decryptPacked(scheme: Scheme, payload: Uint8Array): BigInt64Array {
  const ctx = contexts[scheme]
  return withScope((scope) => {
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    loadSealObject(ciphertext, ctx, envelopeOf(scheme, payload, false), { kind: 'ciphertext' })
    const plaintext = scope.track(new ctx.seal.Plaintext())
    keys[scheme].decryptor.decrypt(ciphertext, plaintext)
    return ctx.batchEncoder?.decodeBigInt64(plaintext) as BigInt64Array
  })
}

function envelopeOf(scheme: Scheme, payload: Uint8Array, seeded: boolean): Uint8Array {
  return encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: contexts[scheme].fingerprint,
    keySetId: keys[scheme].id,
    seeded,
    payload,
  })
}

const edit = (payload: Uint8Array, change: (bytes: Uint8Array, view: DataView) => void): Uint8Array => {
  const bytes = payload.slice()
  change(bytes, new DataView(bytes.buffer))
  return bytes
}

describe('packed ciphertexts that drop low-order bits', () => {
  for (const scheme of ['bgv', 'bfv'] as const) {
    it(`${scheme}: c0's and c1's high bits restore a ciphertext of the same values, in fewer bytes`, () => {
      const { coefficients } = saves(scheme)
      const ctx = contexts[scheme]
      for (const dropBits of [
        [8, 0],
        [4, 1],
      ] as [number, number][]) {
        const packed = packSealCiphertext(ctx, coefficients, { dropBits })
        expect(packed.length).toBe(packedCiphertextBytes(2, N, [27], dropBits))
        expect(packed.length).toBe(packedCiphertextBytes(2, N, [27]) - ((dropBits[0] + dropBits[1]) * N) / 8)
        expect(checkPackedLayout(packed, 'INVALID_ENVELOPE').dropped).toEqual(dropBits)
        expect(decryptPacked(scheme, packed)).toEqual(values)
      }
    })
  }

  it('the writer refuses what the layout cannot say: NTT form, a seeded save, k at the width', () => {
    const ctx = contexts.bgv
    const { ntt, coefficients, seeded } = saves('bgv')
    expect(heErrorOf(() => packSealCiphertext(ctx, ntt, { dropBits: [8, 0] })).message).toMatch(/coefficient form/)
    expect(heErrorOf(() => packSealCiphertext(ctx, seeded, { dropBits: [8, 0] })).code).toBe('INVALID_INPUT')
    expect(heErrorOf(() => packSealCiphertext(ctx, coefficients, { dropBits: [27, 0] })).code).toBe('INVALID_INPUT')
  })

  it('hostile dropped-bits fields are a coded INVALID_ENVELOPE before SEAL sees them', () => {
    const ctx = contexts.bgv
    const { coefficients, seeded } = saves('bgv')
    const response = packSealCiphertext(ctx, coefficients, { dropBits: [8, 0] })
    const query = packSealCiphertext(ctx, seeded)
    const heap = liveSealHandles()
    const before = sealExceptionCount()
    const cases: [string, Uint8Array, boolean, RegExp][] = [
      ['k0 at the width', edit(response, (_, v) => v.setUint8(7, 27)), false, /at most 26 may go/],
      ['k1 far past it', edit(response, (_, v) => v.setUint8(12, 255)), false, /at most 26 may go/],
      ['a seeded query dropping bits', edit(query, (_, v) => v.setUint8(7, 4)), true, /only a two-polynomial/],
      ['k1 with the length of k0', edit(response, (_, v) => v.setUint8(12, 1)), false, /header declares/],
      ['the reserved bytes', edit(response, (_, v) => v.setUint8(13, 1)), false, /reserved/],
      // All ones: h = 2^19 − 1, whose h·2^8 is past q.
      [
        'a rounded residue past q',
        edit(response, (b) => b.fill(0xff, checkPackedLayout(response, 'INVALID_ENVELOPE').bitsAt)),
        false,
        /rounds to \d+, not below the prime/,
      ],
    ]
    for (const [what, payload, isSeeded, pattern] of cases) {
      const error = heErrorOf(() => {
        // encodeEnvelope checks the layout too (INVALID_INPUT); the reader's check is unpack's, below.
        const envelope = envelopeOf('bgv', payload, isSeeded)
        withScope((scope) => {
          loadSealObject(scope.track(new ctx.seal.Ciphertext()), ctx, envelope, { kind: 'ciphertext' })
        })
      })
      expect(['INVALID_ENVELOPE', 'INVALID_INPUT'], what).toContain(error.code)
      expect(error.message, what).toMatch(pattern)
      expect(heErrorOf(() => unpackSealCiphertext(ctx, payload, isSeeded)).code, what).toBe('INVALID_ENVELOPE')
    }
    expect(sealExceptionCount()).toBe(before)
    expect(liveSealHandles()).toBe(heap)
  })
})
