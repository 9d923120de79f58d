import { Buffer } from 'node:buffer'
import { zstdCompressSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles, SealScope, withScope } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { checkSealPayload } from './checkSealPayload.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import type { ContextObjectKind } from './loadSealObject.ts'
import { loadSealObject } from './loadSealObject.ts'
import { prepareSealPayload } from './prepareSealPayload.ts'
import { payloadLimitsOf, structuralPayloadLimits } from './sealPayloadLimits.ts'
import { makeSealTestFixture, type SealTestFixture } from './sealTestFixture.ts'

const KEY_SET = 'dddddddddddddddddddddddddddddddd'
const scope = new SealScope()
let f: SealTestFixture
let handlesAtStart: number
let other: HeContext
const saved: Record<string, Uint8Array> = {}

beforeAll(async () => {
  const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
  other = await getHeContext({ scheme: 'bfv', polyModulusDegree: 8192 })
  handlesAtStart = liveSealHandles()
  f = makeSealTestFixture(ctx, scope, KEY_SET)
  const none = ctx.seal.ComprModeType.none
  saved.ciphertext = f.ciphertext.saveToArray(none) as Uint8Array
  saved.plaintext = f.plaintext.saveToArray(none) as Uint8Array
  saved.publicKey = f.publicKey.saveToArray(none) as Uint8Array
  saved.relinKeys = f.relinKeys.saveToArray(none) as Uint8Array
  saved.galoisKeys = f.galoisKeys.saveToArray(none) as Uint8Array
  saved.secretKey = f.secretKey.saveToArray(none) as Uint8Array
  withScope((s) => {
    saved.seededCiphertext = s
      .track(f.encryptor.encryptSymmetricSerializable(f.plaintext))
      .saveToArray(none) as Uint8Array
    saved.seededGalois = s
      .track(f.keygen.createGaloisKeysSerializableWithSteps(Int32Array.from(f.galoisSteps)))
      .saveToArray(none) as Uint8Array
  })
})
afterAll(() => {
  scope.dispose()
  expect(liveSealHandles()).toBe(handlesAtStart)
})

const limits = () => payloadLimitsOf(f.ctx)
const bytesOf = (name: string) => saved[name] as Uint8Array

function setU64(bytes: Uint8Array, offset: number, value: number | bigint): Uint8Array {
  const copy = bytes.slice()
  new DataView(copy.buffer).setBigUint64(offset, BigInt(value), true)
  return copy
}

/** Offsets in an uncompressed KSwitchKeys payload (SEAL 4.1): see ENVELOPE.md. */
const KEYS_DIM1 = 16 + 32
const FIRST_LIST_LENGTH = KEYS_DIM1 + 8
/** Offsets inside a ciphertext that starts at `at` (its own SEAL header first). */
const ct = (at: number) => ({
  size: at + 16 + 33,
  n: at + 16 + 41,
  k: at + 16 + 49,
  dataHeaderSize: at + 16 + 73 + 8,
  dataCount: at + 16 + 73 + 16,
})
/** Relin keys: one list; its first key starts after the list length. */
const RELIN_FIRST_KEY = FIRST_LIST_LENGTH + 8

function envelopeOf(kind: ContextObjectKind, payload: Uint8Array, meta?: object): Uint8Array {
  return encodeEnvelope({
    kind,
    fingerprint: f.ctx.fingerprint,
    ...(kind === 'plaintext' ? {} : { keySetId: KEY_SET }),
    payload,
    ...(meta ? { meta } : {}),
  } as Parameters<typeof encodeEnvelope>[0])
}

function targetOf(kind: ContextObjectKind) {
  const seal = f.ctx.seal
  switch (kind) {
    case 'ciphertext':
      return new seal.Ciphertext()
    case 'plaintext':
      return new seal.Plaintext()
    case 'publicKey':
      return new seal.PublicKey()
    case 'relinKeys':
      return new seal.RelinKeys()
    case 'galoisKeys':
      return new seal.GaloisKeys()
    case 'secretKey':
      return new seal.SecretKey()
  }
}

/** Loading `envelope` is INVALID_ENVELOPE, SEAL never saw it, and the WASM heap did not move. */
function refusedBeforeSeal(kind: ContextObjectKind, envelope: Uint8Array): string {
  const heap = wasmHeapBytes()
  const exceptions = sealExceptionCount()
  const error = withScope((s) =>
    heErrorOf(() => loadSealObject(s.track(targetOf(kind)) as never, f.ctx, envelope, { kind })),
  )
  expect(error.code, error.message).toBe('INVALID_ENVELOPE')
  expect(sealExceptionCount()).toBe(exceptions)
  expect(wasmHeapBytes()).toBe(heap)
  return error.message
}

describe('checkSealPayload: real SEAL 4.1 payloads', () => {
  it('walks every kind SEAL saves, full and seeded, and reports its shape', () => {
    const l = limits()
    expect(checkSealPayload('ciphertext', bytesOf('ciphertext'), l)).toEqual({
      polyModulusDegree: 4096,
      coeffModulusSize: 2,
      seeded: false,
    })
    expect(checkSealPayload('ciphertext', bytesOf('seededCiphertext'), l).seeded).toBe(true)
    expect(checkSealPayload('plaintext', bytesOf('plaintext'), l).polyModulusDegree).toBe(4096)
    expect(checkSealPayload('secretKey', bytesOf('secretKey'), l).coeffModulusSize).toBe(3)
    expect(checkSealPayload('publicKey', bytesOf('publicKey'), l).coeffModulusSize).toBe(3)
    expect(checkSealPayload('relinKeys', bytesOf('relinKeys'), l).coeffModulusSize).toBe(3)
    const elements = [...f.galoisElements].sort((a, b) => a - b)
    expect(checkSealPayload('galoisKeys', bytesOf('galoisKeys'), l).galoisElements).toEqual(elements)
    const seeded = checkSealPayload('galoisKeys', bytesOf('seededGalois'), l)
    expect([seeded.seeded, seeded.galoisElements]).toEqual([true, elements])
  })

  it('without a context, learns n and the primes from the first key and holds the rest to them', () => {
    const loose = structuralPayloadLimits({ maxPolyModulusDegree: 8192, maxInflatedBytes: 1 << 24 })
    expect(checkSealPayload('galoisKeys', bytesOf('galoisKeys'), loose)).toMatchObject({
      polyModulusDegree: 4096,
      coeffModulusSize: 3,
    })
    // One key of the pair claims other primes: the pair no longer agrees.
    const relin = bytesOf('relinKeys')
    const firstKeyEnd = RELIN_FIRST_KEY + (ct(RELIN_FIRST_KEY).dataCount - RELIN_FIRST_KEY) + 8 + 2 * 4096 * 3 * 8
    expect(heErrorOf(() => checkSealPayload('relinKeys', setU64(relin, ct(firstKeyEnd).k, 2), loose)).code).toBe(
      'INVALID_ENVELOPE',
    )
    const small = structuralPayloadLimits({ maxPolyModulusDegree: 2048, maxInflatedBytes: 1 << 24 })
    expect(heErrorOf(() => checkSealPayload('relinKeys', relin, small)).message).toMatch(/poly_modulus_degree 4096/)
  })
})

describe('forged payloads are refused before SEAL allocates, and the heap does not grow', () => {
  it('the 136-byte Galois-key envelope claiming 357,913,900 keys (and 3e8, and 2^64 − 1)', () => {
    for (const count of [357_913_900, 300_000_000, 2n ** 64n - 1n, 4097, 4095]) {
      const payload = setU64(bytesOf('galoisKeys').subarray(0, 64), KEYS_DIM1, count)
      new DataView(payload.buffer).setUint32(8, payload.length, true)
      const envelope = envelopeOf('galoisKeys', payload, { elements: [3] })
      if (count === 357_913_900) expect(envelope.length).toBe(136)
      refusedBeforeSeal('galoisKeys', envelope)
    }
  })

  it('every count and size field inflated', () => {
    const relin = bytesOf('relinKeys')
    const key = ct(RELIN_FIRST_KEY)
    const cases: [string, Uint8Array][] = [
      ['key lists', setU64(relin, KEYS_DIM1, 2)],
      ['keys per list', setU64(relin, FIRST_LIST_LENGTH, 1_000_000)],
      ['polynomials', setU64(relin, key.size, 1_000_000)],
      ['poly degree', setU64(relin, key.n, 1 << 30)],
      ['primes', setU64(relin, key.k, 1_000_000)],
      ['nested header size', setU64(relin, key.dataHeaderSize, 2 ** 40)],
      ['data count', setU64(relin, key.dataCount, 2 ** 50)],
    ]
    for (const [field, payload] of cases) {
      expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', payload)), field).toMatch(/relinKeys/)
    }
    const c = ct(0)
    for (const offset of [c.size, c.n, c.k, c.dataHeaderSize, c.dataCount]) {
      refusedBeforeSeal('ciphertext', envelopeOf('ciphertext', setU64(bytesOf('ciphertext'), offset, 2 ** 40)))
    }
    // Plaintext coeff_count (after the 32-byte parms_id).
    refusedBeforeSeal('plaintext', envelopeOf('plaintext', setU64(bytesOf('plaintext'), 48, 2 ** 40)))
  })

  it('truncated payloads (the SEAL header re-sized to match)', () => {
    for (const name of ['relinKeys', 'galoisKeys', 'ciphertext'] as const) {
      const full = bytesOf(name)
      for (const length of [17, 48, 56, 64, 100, 200, full.length >> 1, full.length - 8, full.length - 1]) {
        const cut = full.slice(0, length)
        new DataView(cut.buffer).setUint32(8, length, true)
        const meta = name === 'galoisKeys' ? { elements: f.galoisElements } : undefined
        refusedBeforeSeal(name, envelopeOf(name, cut, meta))
      }
    }
  })

  it('another n or other primes than the context', () => {
    const relin = bytesOf('relinKeys')
    const key = ct(RELIN_FIRST_KEY)
    expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', setU64(relin, key.n, 8192)))).toMatch(
      /poly_modulus_degree 8192; these parameters have 4096/,
    )
    expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', setU64(relin, key.k, 2)))).toMatch(
      /2 primes; keys have all 3/,
    )
    expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', setU64(relin, FIRST_LIST_LENGTH, 1)))).toMatch(
      /these parameters need 2/,
    )
    // Keys made under n=8192 checked against this n=4096 context.
    const otherKeys = withScope((s) => {
      const keygen = s.track(new other.seal.KeyGenerator(other.context))
      return s.track(keygen.createRelinKeys()).saveToArray(other.seal.ComprModeType.none) as Uint8Array
    })
    expect(heErrorOf(() => checkSealPayload('relinKeys', otherKeys, limits())).code).toBe('INVALID_ENVELOPE')
  })

  it('a key residue at or above its prime (first and last word, full and seeded keys)', () => {
    const primes = f.ctx.coeffPrimes
    const first = ct(RELIN_FIRST_KEY).dataCount + 8
    const relin = bytesOf('relinKeys')
    for (const [offset, prime] of [
      [first, primes[0]],
      [relin.byteLength - 8, primes[primes.length - 1]],
    ] as const) {
      for (const value of [prime as bigint, (prime as bigint) + 1n, 1n << 63n]) {
        expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', setU64(relin, offset, value)))).toMatch(
          /residue \d+ is not below its prime/,
        )
      }
    }
    // Seeded Galois keys store c0 (and a seed) only; their last key's residues end before its seed.
    const seeded = bytesOf('seededGalois')
    const meta = { elements: f.galoisElements }
    const seededFirst = ct(FIRST_LIST_LENGTH + 8 * (1 + 1)).dataCount + 8
    const forged = setU64(seeded, seededFirst, primes[0] as bigint)
    expect(heErrorOf(() => checkSealPayload('galoisKeys', forged, limits())).message).toMatch(
      /residue 0 is not below its prime/,
    )
    expect(refusedBeforeSeal('galoisKeys', envelopeOf('galoisKeys', forged, meta))).toMatch(/not below its prime/)
    // Without a context the primes are unknown: the structure alone is checked (SEAL checks the rest).
    const structural = structuralPayloadLimits({ maxPolyModulusDegree: 4096, maxInflatedBytes: 1 << 24 })
    expect(checkSealPayload('galoisKeys', forged, structural).seeded).toBe(true)
  })

  it('Galois keys sent as relinKeys, relin keys sent as galoisKeys, and Galois elements the meta does not list', () => {
    expect(refusedBeforeSeal('relinKeys', envelopeOf('relinKeys', bytesOf('galoisKeys')))).toMatch(
      /declare 4096 key lists; relinearization keys have 1 \(this looks like Galois keys/,
    )
    expect(refusedBeforeSeal('galoisKeys', envelopeOf('galoisKeys', bytesOf('relinKeys'), { elements: [3] }))).toMatch(
      /galoisKeys key count/,
    )
    expect(
      refusedBeforeSeal('galoisKeys', envelopeOf('galoisKeys', bytesOf('galoisKeys'), { elements: [3, 5] })),
    ).toMatch(/lists Galois elements 3, 5 but its payload holds/)
  })

  it('a compressed payload that inflates past what these parameters allow (a zstd bomb)', () => {
    const body = zstdCompressSync(new Uint8Array(64 << 20))
    const payload = new Uint8Array(16 + body.length)
    payload.set(bytesOf('galoisKeys').subarray(0, 16))
    payload.set(body, 16)
    const view = new DataView(payload.buffer)
    view.setUint8(5, 2)
    view.setUint32(8, payload.length, true)
    expect(payload.length).toBeLessThan(8192)
    // Too few bytes to hold even one genuine key list: refused before anything is inflated.
    const message = refusedBeforeSeal('galoisKeys', envelopeOf('galoisKeys', payload, { elements: [3] }))
    expect(message).toMatch(
      /lists 1 Galois elements, and their keys take at least \d+ bytes .* refused before inflating/,
    )
  })

  it('a compressed payload big enough for the keys it lists but inflating past their exact size', () => {
    // 1 MiB of random bytes (incompressible, so the upload is large enough for one key list), then zeros.
    const inflated = new Uint8Array(16 << 20)
    for (let i = 0; i < 1 << 20; i += 65536) crypto.getRandomValues(inflated.subarray(i, i + 65536))
    const body = zstdCompressSync(inflated)
    const payload = new Uint8Array(16 + body.length)
    payload.set(bytesOf('galoisKeys').subarray(0, 16))
    payload.set(body, 16)
    const view = new DataView(payload.buffer)
    view.setUint8(5, 2)
    view.setUint32(8, payload.length, true)
    const message = refusedBeforeSeal('galoisKeys', envelopeOf('galoisKeys', payload, { elements: [3] }))
    expect(message).toMatch(/inflates to more than \d+ bytes/)
  })

  it('a genuine compressed payload still loads (inflated here, pre-parsed, then loaded uncompressed)', () => {
    const zstd = f.galoisKeys.saveToArray(f.ctx.seal.ComprModeType.zstd) as Uint8Array
    const prepared = prepareSealPayload(
      { kind: 'galoisKeys', compression: 'zstd', payload: zstd, meta: { elements: f.galoisElements } },
      limits(),
    )
    // Byte-equal to SEAL's own uncompressed save (compared natively: toEqual is slow on 800 kB).
    expect(Buffer.compare(prepared.payload, bytesOf('galoisKeys'))).toBe(0)
    withScope((s) => {
      const keys = s.track(new f.ctx.seal.GaloisKeys())
      loadSealObject(keys, f.ctx, envelopeOf('galoisKeys', zstd, { elements: f.galoisElements }), {
        kind: 'galoisKeys',
      })
      expect(keys.size()).toBe(f.galoisElements.length)
    })
  })

  it('300 forged loads leave handles and heap flat', () => {
    const forged = envelopeOf('galoisKeys', setU64(bytesOf('galoisKeys'), KEYS_DIM1, 357_913_900), { elements: [3] })
    const report = measureHeap(
      () =>
        withScope((s) => loadSealObject(s.track(new f.ctx.seal.GaloisKeys()), f.ctx, forged, { kind: 'galoisKeys' })),
      { expectErrors: true },
    )
    expect(report.heapAfterWarmup).toBeGreaterThan(0)
    expect(report.handlesAfter).toBe(report.handlesBefore)
    expect(report.heapAfter).toBe(report.heapAfterWarmup)
  })
})
