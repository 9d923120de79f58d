import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HeError } from '../errors/HeError.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { KeySet } from '../keys/KeySet.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import { loadSealObject } from './loadSealObject.ts'
import { checkPackedLayout, PACKED_HEADER_BYTES, PACKED_SEED_BYTES } from './packedCiphertext.ts'
import { packSealCiphertext, unpackSealCiphertext } from './packSealCiphertext.ts'

const contexts: Record<'bgv' | 'bfv', HeContext> = {} as Record<'bgv' | 'bfv', HeContext>
const keys: Record<'bgv' | 'bfv', KeySet> = {} as Record<'bgv' | 'bfv', KeySet>
const spec = (scheme: 'bgv' | 'bfv') => ({
  scheme,
  polyModulusDegree: 4096,
  coeffModulus: [27, 28, 28],
  plainModulus: { value: 65537 },
})

beforeAll(async () => {
  for (const scheme of ['bgv', 'bfv'] as const) {
    contexts[scheme] = await getHeContext(spec(scheme))
    keys[scheme] = KeySet.generate(contexts[scheme], {})
  }
})
afterAll(() => {
  for (const set of Object.values(keys)) set.dispose()
})

const values = (n: number) => BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 65537) - 32768n)

/** A seeded query-like save (c0 and the seed) and a switched-to-the-last-level save (c0, c1 at one prime). */
function saves(scheme: 'bgv' | 'bfv'): { seeded: Uint8Array; switched: Uint8Array } {
  const ctx = contexts[scheme]
  const set = keys[scheme]
  const none = ctx.seal.ComprModeType.none
  return withScope((scope) => {
    const plaintext = scope.track(new ctx.seal.Plaintext())
    ctx.batchEncoder?.encode(values(4096), plaintext)
    const serializable = scope.track(set.encryptor.encryptSymmetricSerializable(plaintext))
    const seeded = serializable.saveToArray(none) as Uint8Array
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    set.encryptor.encryptSymmetric(plaintext, ciphertext)
    ctx.evaluator.cipherModSwitchToInplace(ciphertext, scope.track(ctx.context.lastParmsId()))
    return { seeded, switched: ciphertext.saveToArray(none) as Uint8Array }
  })
}

function envelopeOf(scheme: 'bgv' | 'bfv', payload: Uint8Array, seeded: boolean): Uint8Array {
  return encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: contexts[scheme].fingerprint,
    keySetId: keys[scheme].id,
    seeded,
    payload,
  })
}

function decrypts(scheme: 'bgv' | 'bfv', envelope: Uint8Array): BigInt64Array {
  const ctx = contexts[scheme]
  return withScope((scope) => {
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
    const plaintext = scope.track(new ctx.seal.Plaintext())
    keys[scheme].decryptor.decrypt(ciphertext, plaintext)
    return ctx.batchEncoder?.decodeBigInt64(plaintext) as BigInt64Array
  })
}

describe('packed ciphertexts', () => {
  for (const scheme of ['bgv', 'bfv'] as const) {
    it(`${scheme}: rebuilds SEAL's own save byte for byte, seeded and mod-switched, and decrypts exactly`, () => {
      const ctx = contexts[scheme]
      const { seeded, switched } = saves(scheme)
      const packedQuery = packSealCiphertext(ctx, seeded)
      const packedResponse = packSealCiphertext(ctx, switched)
      // 4096 × (27 + 28) bits + the seed; 2 × 4096 × 27 bits at the last level.
      expect(packedQuery.length).toBe(PACKED_HEADER_BYTES + 2 + PACKED_SEED_BYTES + (4096 * 55) / 8)
      expect(packedResponse.length).toBe(PACKED_HEADER_BYTES + 1 + (2 * 4096 * 27) / 8)
      expect(unpackSealCiphertext(ctx, packedQuery, true)).toEqual(seeded)
      expect(unpackSealCiphertext(ctx, packedResponse, false)).toEqual(switched)
      const expected = values(4096)
      expect(decrypts(scheme, envelopeOf(scheme, packedQuery, true))).toEqual(expected)
      expect(decrypts(scheme, envelopeOf(scheme, packedResponse, false))).toEqual(expected)
      expect(decodeEnvelope(envelopeOf(scheme, packedQuery, true)).compression).toBe('packed')
    })
  }

  it('BGV keeps the correction factor its mod switch set', () => {
    const { switched } = saves('bgv')
    const shape = checkPackedLayout(packSealCiphertext(contexts.bgv, switched), 'INVALID_INPUT')
    expect(shape.correctionFactor).not.toBe(1n)
  })
})

describe('forged packed ciphertexts are refused before SEAL sees them', () => {
  const ctx = () => contexts.bgv
  let query: Uint8Array
  let response: Uint8Array
  beforeAll(() => {
    const { seeded, switched } = saves('bgv')
    query = packSealCiphertext(ctx(), seeded)
    response = packSealCiphertext(ctx(), switched)
  })

  function refused(payload: Uint8Array, seeded: boolean, pattern: RegExp): HeError {
    const heap = liveSealHandles()
    const before = sealExceptionCount()
    // Forged envelopes are written by hand: encodeEnvelope would refuse most of them.
    const error = heErrorOf(() => {
      const envelope = envelopeOf('bgv', payload, seeded)
      withScope((scope) => {
        const ciphertext = scope.track(new (ctx().seal.Ciphertext)())
        loadSealObject(ciphertext, ctx(), envelope, { kind: 'ciphertext' })
      })
    })
    expect(['INVALID_ENVELOPE', 'INVALID_INPUT']).toContain(error.code)
    expect(error.message).toMatch(pattern)
    expect(sealExceptionCount()).toBe(before)
    expect(liveSealHandles()).toBe(heap)
    return error
  }

  const edit = (payload: Uint8Array, change: (bytes: Uint8Array, view: DataView) => void): Uint8Array => {
    const bytes = payload.slice()
    change(bytes, new DataView(bytes.buffer))
    return bytes
  }

  it('a residue at or above its prime', () => {
    // The first residue is 27 bits at offset bitsAt: write q0 itself (all its bits).
    const q0 = ctx().coeffPrimes[0] as bigint
    const shape = checkPackedLayout(query, 'INVALID_INPUT')
    const forged = edit(query, (bytes) => {
      let value = q0
      for (let bit = 0; bit < 27; bit++, value >>= 1n) {
        const at = shape.bitsAt + (bit >> 3)
        const mask = 1 << (bit & 7)
        bytes[at] = value & 1n ? (bytes[at] as number) | mask : (bytes[at] as number) & ~mask
      }
    })
    const error = heErrorOf(() => unpackSealCiphertext(ctx(), forged, true))
    expect(error.code).toBe('INVALID_ENVELOPE')
    expect(error.message).toMatch(/not below the prime/)
    // All ones in every residue of a response: the first unreduced one is named.
    const allOnes = edit(response, (bytes) => bytes.fill(0xff, checkPackedLayout(response, 'INVALID_INPUT').bitsAt))
    refused(allOnes, false, /not below the prime/)
  })

  it('forged lengths, counts and widths', () => {
    expect(heErrorOf(() => checkPackedLayout(query.subarray(0, query.length - 1), 'INVALID_ENVELOPE')).message).toMatch(
      /header declares/,
    )
    expect(
      heErrorOf(() =>
        envelopeOf(
          'bgv',
          edit(query, (_, v) => v.setUint8(6, 3)),
          true,
        ),
      ).code,
    ).toBe('INVALID_INPUT')
    // A 28-bit width with the bytes it declares (2 × 4096 more bits): the length is right, the width is not.
    const widened = new Uint8Array(response.length + 1024)
    widened.set(edit(response, (b) => b.set([28], PACKED_HEADER_BYTES)))
    refused(widened, false, /packs prime 0 in 28 bits/)
    refused(
      edit(response, (_, v) => v.setUint32(8, 8192, true)),
      false,
      /header declares|n = 8192/,
    )
    refused(
      edit(response, (_, v) => v.setBigUint64(16, 65537n, true)),
      false,
      /correction factor/,
    )
    refused(
      edit(response, (_, v) => v.setBigUint64(16, 0n, true)),
      false,
      /correction factor/,
    )
    // Dropped bits shorten the residues: the same bytes with k0 = 3 declare fewer.
    refused(
      edit(response, (_, v) => v.setUint8(7, 3)),
      false,
      /header declares/,
    )
    refused(
      edit(query, (b) => b.set([0], PACKED_HEADER_BYTES + 2)),
      true,
      /PRNG type 0/,
    )
  })

  it('a seeded flag that does not match the polynomials stored', () => {
    expect(heErrorOf(() => envelopeOf('bgv', query, false)).message).toMatch(/seeded/)
    expect(heErrorOf(() => unpackSealCiphertext(ctx(), query, false)).message).toMatch(/marked seeded/)
  })

  it('a packed ciphertext of other parameters', async () => {
    const bfv = await getHeContext(spec('bfv'))
    // Same n and primes, but BFV keeps the correction factor at 1: BGV's switched one is refused.
    expect(heErrorOf(() => unpackSealCiphertext(bfv, response, false)).message).toMatch(/correction factor/)
  })
})
