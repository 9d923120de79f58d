import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HeError } from '../errors/HeError.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { exportGaloisKeys } from '../keys/exportKeys.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { KeySet } from '../keys/KeySet.ts'
import { selectGaloisKeys } from '../keys/selectGaloisKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { ParamsInput } from '../params/ParamsSpec.ts'
import { liveSealHandles, withScope } from '../scope/SealScope.ts'
import { heErrorOf, rechecksum } from '../testing/forgedEnvelopes.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { encodeEnvelope, encodeEnvelopeMeta } from './encodeEnvelope.ts'
import { PACKED_SEED_BYTES } from './packedCiphertext.ts'
import { checkPackedGaloisKeysLayout, PACKED_KEYS_HEADER_BYTES } from './packedGaloisKeys.ts'
import { packSealGaloisKeys, unpackSealGaloisKeys } from './packSealGaloisKeys.ts'
import { writeEnvelope } from './writeEnvelope.ts'

type Scheme = 'bgv' | 'bfv' | 'ckks'
const STEPS = [1, 10]
const specs: Record<Scheme, ParamsInput> = {
  bgv: { scheme: 'bgv', polyModulusDegree: 4096, coeffModulus: [27, 28, 28], plainModulus: { value: 65537 } },
  bfv: { scheme: 'bfv', polyModulusDegree: 4096, coeffModulus: [27, 28, 28], plainModulus: { value: 65537 } },
  ckks: { scheme: 'ckks', polyModulusDegree: 4096, coeffModulus: [36, 36, 37], scaleBits: 30 },
}
const contexts = {} as Record<Scheme, HeContext>
const keys = {} as Record<Scheme, KeySet>

beforeAll(async () => {
  for (const scheme of ['bgv', 'bfv', 'ckks'] as const) {
    contexts[scheme] = await getHeContext(specs[scheme])
    keys[scheme] = KeySet.generate(contexts[scheme], { galois: { steps: STEPS } })
  }
}, 120_000)
afterAll(() => {
  for (const set of Object.values(keys)) set.dispose()
})

const elements = (ctx: HeContext) => STEPS.map((step) => galoisElementOf(ctx.params.polyModulusDegree, step))

/** An envelope written as is (encodeEnvelope would refuse most forged payloads). */
function rawEnvelope(scheme: Scheme, payload: Uint8Array, seeded: boolean, listed = elements(contexts[scheme])) {
  return writeEnvelope({
    kind: 'galoisKeys',
    seeded,
    compression: 'packed',
    fingerprint: contexts[scheme].fingerprint,
    keySetId: keys[scheme].id,
    meta: encodeEnvelopeMeta('galoisKeys', { steps: STEPS, elements: listed }),
    payload: [payload],
  })
}

/** Rotates an encrypted 0…n−1 by one row step with the loaded keys and decrypts it. */
function rotatesByOne(ctx: HeContext, loaded: EvaluationKeys): boolean {
  const set = keys.bgv
  const n = ctx.params.polyModulusDegree
  const values = BigInt64Array.from({ length: n }, (_, i) => BigInt(i))
  return withScope((scope) => {
    const plaintext = scope.track(new ctx.seal.Plaintext())
    ctx.batchEncoder?.encode(values, plaintext)
    const ciphertext = scope.track(new ctx.seal.Ciphertext())
    set.encryptor.encryptSymmetric(plaintext, ciphertext)
    ctx.evaluator.rotateRows(ciphertext, 1, loaded.galoisKeys as never, ciphertext)
    set.decryptor.decrypt(ciphertext, plaintext)
    const out = ctx.batchEncoder?.decodeBigInt64(plaintext) as BigInt64Array
    const half = n / 2
    return out.every((value, slot) => {
      const row = Math.floor(slot / half)
      return value === BigInt(row * half + (((slot % half) + 1) % half))
    })
  })
}

describe('packed Galois keys', () => {
  for (const scheme of ['bgv', 'bfv', 'ckks'] as const) {
    it(`${scheme}: rebuild SEAL's own save byte for byte, seeded and full`, () => {
      const ctx = contexts[scheme]
      for (const seeded of [true, false]) {
        const saved = keys[scheme].serializeGaloisKeys('none', seeded)
        const packed = packSealGaloisKeys(ctx, saved)
        expect(unpackSealGaloisKeys(ctx, packed, seeded)).toEqual(saved)
        const shape = checkPackedGaloisKeysLayout(packed, 'INVALID_INPUT')
        expect(shape.elements).toEqual([...elements(ctx)].sort((a, b) => a - b))
        expect(shape.seeded).toBe(seeded)
      }
    })
  }

  it('unpacks only the elements asked for: the same bytes as narrowing the whole save', () => {
    const ctx = contexts.bfv
    for (const seeded of [true, false]) {
      const saved = keys.bfv.serializeGaloisKeys('none', seeded)
      const packed = packSealGaloisKeys(ctx, saved)
      for (const only of [[elements(ctx)[1] as number], [], elements(ctx)]) {
        const part = unpackSealGaloisKeys(ctx, packed, seeded, only)
        expect(part).toEqual(selectGaloisKeys(saved, only))
        if (only.length === 1) expect(part.length).toBeLessThan(saved.length / 1.5)
      }
    }
  })

  it("is 170,271 bytes for two seeded elements at n = 4096 [27, 28, 28] (Apple's 170.2 KB)", () => {
    const packed = packSealGaloisKeys(contexts.bgv, keys.bgv.serializeGaloisKeys('none', true))
    // Per element 2 keys, each 4096 × (27 + 28 + 28) bits and a seed.
    expect(packed.length).toBe(PACKED_KEYS_HEADER_BYTES + 3 + 2 * 4 + 4 * (PACKED_SEED_BYTES + (4096 * 83) / 8))
    expect(packed.length).toBe(170_271)
    const envelope = exportGaloisKeys(keys.bgv, { compression: 'packed' })
    expect(envelope.length).toBeLessThan(170_400)
    expect(decodeEnvelope(envelope).compression).toBe('packed')
  })

  it('load through EvaluationKeys and rotate exactly; the heap returns to its level', () => {
    const ctx = contexts.bgv
    const envelope = exportGaloisKeys(keys.bgv, { compression: 'packed' })
    const loadAndRotate = () => {
      const loaded = EvaluationKeys.load(ctx, envelope)
      try {
        expect(loaded.galoisElements).toEqual([...elements(ctx)].sort((a, b) => a - b))
        expect(rotatesByOne(ctx, loaded)).toBe(true)
      } finally {
        loaded.dispose()
      }
    }
    // The first run makes the key set's encryptor and decryptor, which live with it.
    loadAndRotate()
    const heap = liveSealHandles()
    loadAndRotate()
    expect(liveSealHandles()).toBe(heap)
  })
})

describe('forged packed Galois keys are refused before SEAL sees them', () => {
  let packed: Uint8Array
  let full: Uint8Array
  beforeAll(() => {
    packed = packSealGaloisKeys(contexts.bgv, keys.bgv.serializeGaloisKeys('none', true))
    full = packSealGaloisKeys(contexts.bgv, keys.bgv.serializeGaloisKeys('none', false))
  })

  function refused(envelope: Uint8Array, pattern: RegExp, scheme: Scheme = 'bgv'): HeError {
    const heap = liveSealHandles()
    const before = sealExceptionCount()
    const error = heErrorOf(() => EvaluationKeys.load(contexts[scheme], envelope).dispose())
    expect(error.code).toBe('INVALID_ENVELOPE')
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
  const keysAt = () => checkPackedGaloisKeysLayout(packed, 'INVALID_INPUT').keysAt

  it('residues at or above their primes', () => {
    // The first residue of the first key: 27 bits after its seed. All ones is 2^27 − 1 ≥ q0.
    const first = keysAt() + PACKED_SEED_BYTES
    refused(
      rawEnvelope(
        'bgv',
        edit(packed, (bytes) => bytes.fill(0xff, first, first + 4)),
        true,
      ),
      /element 3 key 0 .*residue 0 of polynomial 0, prime 0 is \d+, not below the prime/,
    )
    // The top bits of the last key's last residue (the special prime's): all ones is above it.
    refused(
      rawEnvelope(
        'bgv',
        edit(packed, (bytes) => bytes.fill(0xff, bytes.length - 4)),
        true,
      ),
      /not below the prime/,
    )
  })

  it('forged lengths, counts, widths, elements and seeds', () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ['truncated', packed.subarray(0, packed.length - 1), /header declares/],
      ['a byte more', Uint8Array.from([...packed, 0]), /header declares/],
      [
        'an element count the bytes do not hold',
        edit(packed, (_, v) => v.setUint32(12, 4096, true)),
        /header declares/,
      ],
      ['no element', edit(packed, (_, v) => v.setUint32(12, 0, true)), /declare 0 Galois elements/],
      ['more keys per element', edit(packed, (_, v) => v.setUint8(7, 3)), /keys per element/],
      ['a prime fewer', edit(packed, (_, v) => v.setUint8(6, 2)), /keys per element|header declares/],
      ['a forged n', edit(packed, (_, v) => v.setUint32(8, 8192, true)), /header declares/],
      ['an unknown n', edit(packed, (_, v) => v.setUint32(8, 5000, true)), /n = 5000/],
      ['a width of 0', edit(packed, (b) => b.set([0], PACKED_KEYS_HEADER_BYTES)), /0-bit residue width/],
      ['version 2', edit(packed, (_, v) => v.setUint8(4, 2)), /layout version 2/],
      ['an even element', edit(packed, (_, v) => v.setUint32(PACKED_KEYS_HEADER_BYTES + 3, 4, true)), /element 4/],
      [
        'elements out of order',
        edit(packed, (_, v) => {
          v.setUint32(PACKED_KEYS_HEADER_BYTES + 3, 1705, true)
          v.setUint32(PACKED_KEYS_HEADER_BYTES + 7, 3, true)
        }),
        /strictly ascending/,
      ],
      [
        'an element of 2n',
        edit(packed, (_, v) => v.setUint32(PACKED_KEYS_HEADER_BYTES + 7, 8193, true)),
        /element 8193/,
      ],
    ]
    for (const [what, payload, pattern] of cases) {
      expect(heErrorOf(() => decodeEnvelope(rawEnvelope('bgv', payload, true))).message, what).toMatch(pattern)
      refused(rawEnvelope('bgv', payload, true), pattern)
    }
    // Elements the payload holds but the meta does not list (and the other way round).
    refused(rawEnvelope('bgv', packed, true, [3, 5]), /lists Galois elements 3, 5 but its packed payload holds 3, 1705/)
    // A width that is not the prime's, with the bytes it declares (4 keys × 4096 more bits).
    const widened = new Uint8Array(packed.length + 4 * 512)
    widened.set(edit(packed, (b) => b.set([28], PACKED_KEYS_HEADER_BYTES)))
    refused(rawEnvelope('bgv', widened, true), /packs? prime 0 in 28 bits/)
    refused(
      rawEnvelope(
        'bgv',
        edit(packed, (b) => b.set([0], keysAt())),
        true,
      ),
      /PRNG type 0/,
    )
  })

  it('a seeded flag that does not match, and keys of other parameters', () => {
    refused(rawEnvelope('bgv', packed, false), /marked seeded/)
    refused(rawEnvelope('bgv', full, true), /marked seeded/)
    // CKKS keys have other primes: an envelope claiming the BGV fingerprint is refused on the widths.
    const ckks = packSealGaloisKeys(contexts.ckks, keys.ckks.serializeGaloisKeys('none', true))
    refused(rawEnvelope('bgv', ckks, true), /bits; its prime/)
  })

  it('encodeEnvelope writes only what the reader accepts', () => {
    const base = { fingerprint: contexts.bgv.fingerprint, keySetId: keys.bgv.id }
    const meta = { steps: STEPS, elements: elements(contexts.bgv) }
    expect(
      heErrorOf(() => encodeEnvelope({ ...base, kind: 'ciphertext', seeded: true, payload: packed })).message,
    ).toMatch(/no ciphertext/)
    expect(
      heErrorOf(() => encodeEnvelope({ ...base, kind: 'galoisKeys', seeded: false, payload: packed, meta })).message,
    ).toMatch(/seeded/)
    expect(
      heErrorOf(() =>
        encodeEnvelope({ ...base, kind: 'galoisKeys', seeded: true, payload: packed, meta: { elements: [3] } }),
      ).message,
    ).toMatch(/meta lists Galois elements 3/)
    // A relin-key envelope marked packed is refused on its header.
    const relin = rechecksum(
      edit(rawEnvelope('bgv', packed, true), (bytes) => {
        bytes[4] = 4
      }),
    )
    expect(heErrorOf(() => decodeEnvelope(relin)).message).toMatch(/relinKeys marked packed/)
  })
})
