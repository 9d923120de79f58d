import type { Ciphertext } from 'node-seal/throws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { SealScope } from '../scope/SealScope.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { decodeBundle } from './decodeBundle.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { encodeBundle } from './encodeBundle.ts'
import type { EnvelopeCompression } from './envelopeKinds.ts'
import { loadSealObject, loadSealParams } from './loadSealObject.ts'
import { saveSealObject } from './saveSealObject.ts'
import { decryptValues, makeSealTestFixture, type SealTestFixture } from './sealTestFixture.ts'

const KEY_SET = '5eed5eed5eed5eed5eed5eed5eed5eed'
const scope = new SealScope()
let f: SealTestFixture

beforeAll(async () => {
  const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
  f = makeSealTestFixture(ctx, scope, KEY_SET)
})
afterAll(() => scope.dispose())

const rotateLeft = (values: BigInt64Array, step: number) => {
  const row = values.length / 2
  return values.map((_, i) => values[Math.floor(i / row) * row + (((i % row) + step + row) % row)] as bigint)
}

function expectDecrypts(ciphertext: Ciphertext, expected: BigInt64Array) {
  expect(Array.from(decryptValues(f, ciphertext, scope))).toEqual(Array.from(expected))
}

describe('saveSealObject / loadSealObject round trips with real SEAL (BFV n=4096)', () => {
  const modes: EnvelopeCompression[] = ['none', 'zstd']

  it.each(modes)('params (%s) reload into EncryptionParameters and rebuild the same context', (compression) => {
    const bytes = saveSealObject(f.ctx.parms, {
      kind: 'params',
      fingerprint: f.ctx.fingerprint,
      compression,
      meta: { scheme: 'bfv', polyModulusDegree: 4096, security: 'tc128' },
    })
    const parms = scope.track(new f.ctx.seal.EncryptionParameters(f.ctx.seal.SchemeType.none))
    const envelope = loadSealParams(parms, bytes, { fingerprint: f.ctx.fingerprint })
    expect(envelope.meta.security).toBe('tc128')
    expect(envelope.compression).toBe(compression)
    expect(parms.polyModulusDegree()).toBe(4096)
    const none = f.ctx.seal.ComprModeType.none
    expect(parms.saveToArray(none)).toEqual(f.ctx.parms.saveToArray(none))
  })

  it.each(modes)('secret key (%s) decrypts after the round trip', (compression) => {
    const bytes = saveSealObject(f.secretKey, {
      kind: 'secretKey',
      fingerprint: f.ctx.fingerprint,
      keySetId: KEY_SET,
      compression,
    })
    const secretKey = scope.track(new f.ctx.seal.SecretKey())
    loadSealObject(secretKey, f.ctx, bytes, { kind: 'secretKey', keySetId: KEY_SET })
    const decryptor = scope.track(new f.ctx.seal.Decryptor(f.ctx.context, secretKey))
    const plain = scope.track(new f.ctx.seal.Plaintext())
    decryptor.decrypt(f.ciphertext, plain)
    expect(Array.from(f.encoder.decodeBigInt64(plain) as BigInt64Array)).toEqual(Array.from(f.values))
  })

  it.each([
    ['none', false],
    ['zstd', true],
    ['none', true],
  ] as const)('public key (%s, seeded %s) encrypts after the round trip', (compression, seeded) => {
    const source = seeded ? scope.track(f.keygen.createPublicKeySerializable()) : f.publicKey
    const bytes = saveSealObject(source, {
      kind: 'publicKey',
      fingerprint: f.ctx.fingerprint,
      keySetId: KEY_SET,
      compression,
    })
    expect(decodeEnvelope(bytes).seeded).toBe(seeded)
    const publicKey = scope.track(new f.ctx.seal.PublicKey())
    loadSealObject(publicKey, f.ctx, bytes, { kind: 'publicKey', keySetId: KEY_SET, refuseSecretKey: true })
    const encryptor = scope.track(new f.ctx.seal.Encryptor(f.ctx.context, publicKey))
    const ciphertext = scope.track(new f.ctx.seal.Ciphertext())
    encryptor.encrypt(f.plaintext, ciphertext)
    expectDecrypts(ciphertext, f.values)
  })

  it.each([false, true])('relin keys (seeded %s) relinearize a square after the round trip', (seeded) => {
    const source = seeded ? scope.track(f.keygen.createRelinKeysSerializable()) : f.relinKeys
    const bytes = saveSealObject(source, {
      kind: 'relinKeys',
      fingerprint: f.ctx.fingerprint,
      keySetId: KEY_SET,
      compression: 'zstd',
    })
    const relinKeys = scope.track(new f.ctx.seal.RelinKeys())
    const envelope = loadSealObject(relinKeys, f.ctx, bytes, {
      kind: 'relinKeys',
      keySetId: KEY_SET,
      refuseSecretKey: true,
    })
    expect(envelope.seeded).toBe(seeded)
    const squared = scope.track(new f.ctx.seal.Ciphertext())
    f.evaluator.square(f.ciphertext, squared)
    f.evaluator.relinearizeInplace(squared, relinKeys)
    expect(squared.size()).toBe(2)
    expectDecrypts(
      squared,
      f.values.map((v) => v * v),
    )
  })

  it.each([false, true])(
    'Galois keys (seeded %s) rotate after the round trip, with their elements in meta',
    (seeded) => {
      const source = seeded
        ? scope.track(f.keygen.createGaloisKeysSerializableWithSteps(Int32Array.from(f.galoisSteps)))
        : f.galoisKeys
      const bytes = saveSealObject(source, {
        kind: 'galoisKeys',
        fingerprint: f.ctx.fingerprint,
        keySetId: KEY_SET,
        compression: 'zstd',
        meta: { steps: f.galoisSteps, elements: f.galoisElements },
      })
      const galoisKeys = scope.track(new f.ctx.seal.GaloisKeys())
      const envelope = loadSealObject(galoisKeys, f.ctx, bytes, { kind: 'galoisKeys', keySetId: KEY_SET })
      expect(envelope.meta.elements).toEqual(f.galoisElements)
      expect(f.galoisElements[0]).toBe(3)
      for (const element of envelope.meta.elements) expect(galoisKeys.hasKey(element)).toBe(true)
      const rotated = scope.track(new f.ctx.seal.Ciphertext())
      f.evaluator.rotateRows(f.ciphertext, 1, galoisKeys, rotated)
      expectDecrypts(rotated, rotateLeft(f.values, 1))
    },
  )

  it.each(['none', 'zlib', 'zstd'] as const)('plaintext (%s) decodes to the same values', (compression) => {
    const bytes = saveSealObject(f.plaintext, { kind: 'plaintext', fingerprint: f.ctx.fingerprint, compression })
    const plaintext = scope.track(new f.ctx.seal.Plaintext())
    loadSealObject(plaintext, f.ctx, bytes, { kind: 'plaintext', keySetId: KEY_SET })
    expect(Array.from(f.encoder.decodeBigInt64(plaintext) as BigInt64Array)).toEqual(Array.from(f.values))
  })

  it.each([
    ['none', false],
    ['zlib', false],
    ['zstd', true],
  ] as const)('ciphertext (%s, seeded %s) decrypts after the round trip', (compression, seeded) => {
    const source = seeded ? scope.track(f.encryptor.encryptSymmetricSerializable(f.plaintext)) : f.ciphertext
    const bytes = saveSealObject(source, {
      kind: 'ciphertext',
      fingerprint: f.ctx.fingerprint,
      keySetId: KEY_SET,
      compression,
      meta: { level: f.ctx.topLevel, size: 2 },
    })
    const ciphertext = scope.track(new f.ctx.seal.Ciphertext())
    const envelope = loadSealObject(ciphertext, f.ctx, bytes, { kind: 'ciphertext', keySetId: KEY_SET })
    expect(envelope).toMatchObject({ seeded, compression, meta: { level: 1, size: 2 } })
    expectDecrypts(ciphertext, f.values)
  })

  it('a bundle of evaluation keys and a query loads item by item', () => {
    const common = { fingerprint: f.ctx.fingerprint, keySetId: KEY_SET, compression: 'zstd' } as const
    const upload = encodeBundle(
      [
        saveSealObject(f.relinKeys, { ...common, kind: 'relinKeys' }),
        saveSealObject(f.galoisKeys, { ...common, kind: 'galoisKeys', meta: { elements: f.galoisElements } }),
        saveSealObject(f.ciphertext, { ...common, kind: 'ciphertext' }),
      ],
      { labels: ['relin', 'galois', 'query'] },
    )
    const bundle = decodeBundle(upload, { fingerprint: f.ctx.fingerprint, keySetId: KEY_SET, refuseSecretKey: true })
    const [relin, galois, query] = bundle.items
    const relinKeys = scope.track(new f.ctx.seal.RelinKeys())
    const galoisKeys = scope.track(new f.ctx.seal.GaloisKeys())
    const ciphertext = scope.track(new f.ctx.seal.Ciphertext())
    // Decoded items are passed as envelopes: no second checksum pass.
    loadSealObject(relinKeys, f.ctx, relin!, { kind: 'relinKeys' })
    loadSealObject(galoisKeys, f.ctx, galois!, { kind: 'galoisKeys' })
    loadSealObject(ciphertext, f.ctx, query!, { kind: 'ciphertext' })
    const rotated = scope.track(new f.ctx.seal.Ciphertext())
    f.evaluator.rotateRows(ciphertext, -1, galoisKeys, rotated)
    expectDecrypts(rotated, rotateLeft(f.values, -1))
    // An item passed as an envelope still meets the caller's expectations.
    const wrong = heErrorOf(() => loadSealObject(galoisKeys, f.ctx, relin!, { kind: 'galoisKeys' }))
    expect(wrong.code).toBe('ENVELOPE_KIND_MISMATCH')
  })

  it('refuses to save an object under another kind or seededness', () => {
    const before = sealExceptionCount()
    const common = { fingerprint: f.ctx.fingerprint, keySetId: KEY_SET, compression: 'none' } as const
    const asGalois = heErrorOf(() =>
      saveSealObject(f.relinKeys, { ...common, kind: 'galoisKeys', meta: { elements: [3] } }),
    )
    expect(asGalois.code).toBe('INVALID_INPUT')
    expect(asGalois.message).toBe('cannot save a RelinKeys as galoisKeys: it is a relinKeys')
    const seeded = heErrorOf(() => saveSealObject(f.publicKey, { ...common, kind: 'publicKey', seeded: true }))
    expect(seeded.message).toMatch(/a PublicKey is not seeded/)
    expect(sealExceptionCount()).toBe(before)
  })
})
