import { describe, expect, it } from 'vitest'
import { fakeSealPayload, heErrorOf, rechecksum } from '../testing/forgedEnvelopes.ts'
import { bytesToBase64 } from './base64.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import type { EnvelopeKind } from './envelopeKinds.ts'
import {
  ENVELOPE_HEADER_BYTES,
  OFFSET_COMPRESSION,
  OFFSET_FLAGS,
  OFFSET_KIND,
  OFFSET_META_LENGTH,
  OFFSET_PAYLOAD_LENGTH,
  OFFSET_RESERVED,
  OFFSET_VERSION,
} from './envelopeLayout.ts'
import { writeEnvelope } from './writeEnvelope.ts'

const FP = '00112233445566778899aabbccddeeff'
const OTHER_FP = 'ffeeddccbbaa99887766554433221100'
const KS = 'fedcba98765432100123456789abcdef'
const OTHER_KS = '0123456789abcdeffedcba9876543210'

function ciphertextEnvelope(): Uint8Array {
  return encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: FP,
    keySetId: KS,
    payload: fakeSealPayload(100),
    meta: { level: 1, size: 2 },
  })
}

function codeOf(bytes: Uint8Array, expect = {}): string {
  return heErrorOf(() => decodeEnvelope(bytes, expect)).code
}

/** A deterministic PRNG (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** An envelope written with arbitrary (even invalid) fields and a correct checksum. */
function forged(fields: { kind?: EnvelopeKind; meta?: string; payload?: Uint8Array; keySetId?: string }): Uint8Array {
  return writeEnvelope({
    kind: fields.kind ?? 'ciphertext',
    seeded: false,
    compression: 'none',
    fingerprint: FP,
    keySetId: fields.keySetId,
    meta: new TextEncoder().encode(fields.meta ?? '{}'),
    payload: [fields.payload ?? fakeSealPayload(10)],
  })
}

describe('decodeEnvelope rejects bad input before SEAL', () => {
  it('empty and one-byte inputs', () => {
    expect(heErrorOf(() => decodeEnvelope(new Uint8Array(0))).message).toMatch(/envelope is empty/)
    expect(heErrorOf(() => decodeEnvelope(new Uint8Array([0x53]))).message).toMatch(/truncated: 1 bytes/)
    expect(heErrorOf(() => decodeEnvelope(new Uint8Array([0x00]))).message).toMatch(/not a sealbox envelope/)
    for (let byte = 0; byte < 256; byte++) expect(codeOf(new Uint8Array([byte]))).toBe('INVALID_ENVELOPE')
  })

  it('truncation at every offset, and trailing bytes', () => {
    const bytes = ciphertextEnvelope()
    for (let length = 0; length < bytes.length; length++) {
      const error = heErrorOf(() => decodeEnvelope(bytes.subarray(0, length)))
      expect(error.code, `length ${length}`).toBe('INVALID_ENVELOPE')
      if (length >= ENVELOPE_HEADER_BYTES) expect(error.message).toMatch(/truncated: its header declares/)
    }
    const longer = new Uint8Array(bytes.length + 3)
    longer.set(bytes)
    expect(heErrorOf(() => decodeEnvelope(longer)).message).toMatch(/3 unexpected bytes after/)
  })

  it('random bytes, with and without a valid-looking frame', () => {
    const next = random(1)
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256))
      expect(codeOf(bytes)).toBe('INVALID_ENVELOPE')
      // Give the noise a correct magic, version and lengths: only the checksum can catch it.
      if (bytes.length >= ENVELOPE_HEADER_BYTES + 4) {
        bytes.set([0x53, 0x42, 0x58, 1])
        const view = new DataView(bytes.buffer)
        view.setUint32(OFFSET_META_LENGTH, 0, true)
        view.setUint32(OFFSET_PAYLOAD_LENGTH, bytes.length - ENVELOPE_HEADER_BYTES - 4, true)
        view.setUint32(OFFSET_PAYLOAD_LENGTH + 4, 0, true)
        expect(codeOf(bytes)).toBe('ENVELOPE_INTEGRITY')
      }
    }
  })

  it('a flipped byte anywhere: magic/version/lengths are structure, the rest is the checksum', () => {
    const original = ciphertextEnvelope()
    for (let offset = 0; offset < original.length; offset++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bytes = original.slice()
        bytes[offset] = (bytes[offset] as number) ^ mask
        const structural =
          offset <= OFFSET_VERSION || (offset >= OFFSET_PAYLOAD_LENGTH && offset < ENVELOPE_HEADER_BYTES)
        expect(codeOf(bytes), `offset ${offset} mask ${mask}`).toBe(
          structural ? 'INVALID_ENVELOPE' : 'ENVELOPE_INTEGRITY',
        )
      }
    }
  })

  it('names wrong magic and unsupported versions, with hints for common mix-ups', () => {
    const bytes = ciphertextEnvelope()
    const wrongMagic = bytes.slice()
    wrongMagic[1] = 0x43
    expect(heErrorOf(() => decodeEnvelope(wrongMagic)).message).toMatch(
      /expected magic "SBX" \(53 42 58\), found 53 43 58 01/,
    )
    const newer = bytes.slice()
    newer[OFFSET_VERSION] = 2
    expect(heErrorOf(() => decodeEnvelope(newer)).message).toMatch(
      /unsupported format version 2.*understands version 1/,
    )
    const older = bytes.slice()
    older[OFFSET_VERSION] = 0
    expect(codeOf(older)).toBe('INVALID_ENVELOPE')
    expect(heErrorOf(() => decodeEnvelope(fakeSealPayload(50))).message).toMatch(/raw SEAL object; wrap it/)
    const base64 = new TextEncoder().encode(bytesToBase64(bytes))
    expect(heErrorOf(() => decodeEnvelope(base64)).message).toMatch(/base64 text; decode it/)
  })

  it('header codes a checksum cannot vouch for (writer bugs, forgeries)', () => {
    const cases: Array<[number, number, RegExp]> = [
      [OFFSET_KIND, 0, /unknown kind code 0/],
      [OFFSET_KIND, 9, /unknown kind code 9/],
      [OFFSET_KIND, 255, /unknown kind code 255/],
      [OFFSET_FLAGS, 0x02, /unknown flags 0x02/],
      [OFFSET_FLAGS, 0x81, /unknown flags 0x81/],
      [OFFSET_COMPRESSION, 4, /unknown compression code 4/],
      // Code 3 is packed: a SEAL payload under it is not a packed layout.
      [OFFSET_COMPRESSION, 3, /packed ciphertext does not start with the magic/],
      [OFFSET_RESERVED, 1, /non-zero reserved byte/],
    ]
    for (const [offset, value, message] of cases) {
      const bytes = ciphertextEnvelope()
      bytes[offset] = value
      const error = heErrorOf(() => decodeEnvelope(rechecksum(bytes)))
      expect(error.code).toBe('INVALID_ENVELOPE')
      expect(error.message).toMatch(message)
    }
    const seededSecret = forged({ kind: 'secretKey' })
    seededSecret[OFFSET_FLAGS] = 1
    expect(heErrorOf(() => decodeEnvelope(rechecksum(seededSecret))).message).toMatch(/secretKey cannot be seeded/)
    const keyedParams = forged({ kind: 'params', keySetId: KS })
    expect(heErrorOf(() => decodeEnvelope(keyedParams)).message).toMatch(/params, which belongs to no key set/)
    const compressedBundle = forged({ kind: 'bundle', meta: '{"count":1}', payload: ciphertextEnvelope() })
    compressedBundle[OFFSET_COMPRESSION] = 2
    expect(heErrorOf(() => decodeEnvelope(rechecksum(compressedBundle))).message).toMatch(
      /bundles are stored uncompressed/,
    )
  })

  it('malformed or invalid meta', () => {
    const cases: Array<[string | Uint8Array, RegExp]> = [
      ['', /not valid UTF-8 JSON/],
      ['{', /not valid UTF-8 JSON/],
      ['{"level":1,}', /not valid UTF-8 JSON/],
      [new Uint8Array([0x7b, 0xff, 0x7d]), /not valid UTF-8 JSON/],
      ['null', /ciphertext envelope meta: \(root\)/],
      ['[]', /ciphertext envelope meta: \(root\)/],
      ['"text"', /ciphertext envelope meta/],
      ['{"level":-1}', /meta: level/],
      ['{"level":1.5}', /meta: level/],
      ['{"scale":"big"}', /meta: scale/],
      ['{"size":1}', /meta: size/],
      [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, /ciphertext envelope meta/],
    ]
    for (const [meta, message] of cases) {
      const bytes = writeEnvelope({
        kind: 'ciphertext',
        seeded: false,
        compression: 'none',
        fingerprint: FP,
        keySetId: undefined,
        meta: typeof meta === 'string' ? new TextEncoder().encode(meta) : meta,
        payload: [fakeSealPayload(10)],
      })
      const error = heErrorOf(() => decodeEnvelope(bytes))
      expect(error.code, String(meta).slice(0, 20)).toBe('INVALID_ENVELOPE')
      expect(error.message).toMatch(message)
    }
    const galois = forged({ kind: 'galoisKeys', keySetId: KS, meta: '{"elements":[3,5,8]}' })
    expect(heErrorOf(() => decodeEnvelope(galois)).message).toMatch(
      /galoisKeys envelope meta: elements.2: Galois elements are odd/,
    )
    // Unknown meta keys from a newer writer are dropped, not refused.
    const newer = forged({ meta: '{"level":1,"futureField":true}' })
    expect(decodeEnvelope(newer).meta).toEqual({ level: 1 })
  })

  it('an oversized meta length is refused before anything is read', () => {
    const bytes = ciphertextEnvelope()
    new DataView(bytes.buffer).setUint32(OFFSET_META_LENGTH, 2 ** 20 + 1, true)
    expect(heErrorOf(() => decodeEnvelope(bytes)).message).toMatch(/meta declares 1048577 bytes, more than/)
  })

  it('a payload whose SEAL header is wrong or disagrees with the envelope', () => {
    const tamper = (change: (view: DataView) => void) => {
      const payload = fakeSealPayload(20)
      change(new DataView(payload.buffer))
      return forged({ payload })
    }
    const cases: Array<[Uint8Array, RegExp]> = [
      [forged({ payload: new Uint8Array(0) }), /payload is 0 bytes, shorter than/],
      [forged({ payload: new Uint8Array(15) }), /payload is 15 bytes/],
      [tamper((v) => v.setUint16(0, 0x1234, true)), /magic 0x1234, expected 0xa15e/],
      [tamper((v) => v.setUint8(3, 3)), /saved by SEAL 3\.1, expected 4\.1/],
      [tamper((v) => v.setUint8(5, 2)), /says compression none but its SEAL payload says zstd/],
      [tamper((v) => v.setUint32(8, 1000, true)), /declares 1000 bytes but the payload is 36 bytes/],
    ]
    for (const [bytes, message] of cases) {
      const error = heErrorOf(() => decodeEnvelope(bytes))
      expect(error.code).toBe('INVALID_ENVELOPE')
      expect(error.message).toMatch(message)
    }
  })

  it('checks the checksum before the caller’s expectations', () => {
    const bytes = ciphertextEnvelope()
    bytes[ENVELOPE_HEADER_BYTES + 2] = (bytes[ENVELOPE_HEADER_BYTES + 2] as number) ^ 1
    expect(codeOf(bytes, { kind: 'galoisKeys', fingerprint: OTHER_FP, refuseSecretKey: true })).toBe(
      'ENVELOPE_INTEGRITY',
    )
  })
})

describe('decodeEnvelope checks what the caller expects', () => {
  const relin = encodeEnvelope({ kind: 'relinKeys', fingerprint: FP, keySetId: KS, payload: fakeSealPayload(10) })
  const secret = encodeEnvelope({ kind: 'secretKey', fingerprint: FP, keySetId: KS, payload: fakeSealPayload(10) })
  const plaintext = encodeEnvelope({ kind: 'plaintext', fingerprint: FP, payload: fakeSealPayload(10) })
  const anonymous = encodeEnvelope({ kind: 'ciphertext', fingerprint: FP, payload: fakeSealPayload(10) })

  it('kind: relin keys offered as Galois keys', () => {
    const error = heErrorOf(() => decodeEnvelope(relin, { kind: 'galoisKeys' }))
    expect(error.code).toBe('ENVELOPE_KIND_MISMATCH')
    expect(error.message).toBe('envelope: expected galoisKeys, got relinKeys')
    expect(error.details).toEqual({ expected: ['galoisKeys'], found: 'relinKeys' })
    const many = heErrorOf(() => decodeEnvelope(relin, { kind: ['ciphertext', 'plaintext'] }))
    expect(many.message).toBe('envelope: expected one of ciphertext, plaintext, got relinKeys')
    expect(decodeEnvelope(relin, { kind: ['galoisKeys', 'relinKeys'] }).kind).toBe('relinKeys')
  })

  it('params fingerprint', () => {
    const error = heErrorOf(() => decodeEnvelope(relin, { fingerprint: OTHER_FP }))
    expect(error.code).toBe('PARAMS_MISMATCH')
    expect(error.message).toContain(`expected params fingerprint ${OTHER_FP}, got ${FP}`)
    expect(error.httpStatus).toBe(409)
  })

  it('key set: another one, or none at all', () => {
    const other = heErrorOf(() => decodeEnvelope(relin, { keySetId: OTHER_KS }))
    expect(other.code).toBe('KEY_SET_MISMATCH')
    expect(other.message).toContain(`expected key set ${OTHER_KS}, got ${KS}`)
    const none = heErrorOf(() => decodeEnvelope(anonymous, { keySetId: KS }))
    expect(none.code).toBe('KEY_SET_MISMATCH')
    expect(none.message).toContain('got none')
    // Plaintexts and params belong to no key set: a key-set expectation does not apply.
    expect(decodeEnvelope(plaintext, { keySetId: KS }).keySetId).toBeUndefined()
    expect(decodeEnvelope(relin, { keySetId: KS }).keySetId).toBe(KS)
  })

  it('secret keys where they are refused — before the kind check', () => {
    for (const kind of [undefined, 'secretKey', 'galoisKeys'] as const) {
      const error = heErrorOf(() => decodeEnvelope(secret, { refuseSecretKey: true, ...(kind ? { kind } : {}) }))
      expect(error.code).toBe('SECRET_KEY_REFUSED')
    }
    expect(decodeEnvelope(secret, { kind: 'secretKey' }).kind).toBe('secretKey')
    expect(decodeEnvelope(relin, { refuseSecretKey: true }).kind).toBe('relinKeys')
  })

  it('checks in order: secret key, kind, fingerprint, key set', () => {
    expect(codeOf(secret, { refuseSecretKey: true, kind: 'relinKeys', fingerprint: OTHER_FP })).toBe(
      'SECRET_KEY_REFUSED',
    )
    expect(codeOf(relin, { kind: 'galoisKeys', fingerprint: OTHER_FP, keySetId: OTHER_KS })).toBe(
      'ENVELOPE_KIND_MISMATCH',
    )
    expect(codeOf(relin, { fingerprint: OTHER_FP, keySetId: OTHER_KS })).toBe('PARAMS_MISMATCH')
  })

  it('a malformed expectation is the caller’s bug (INVALID_INPUT)', () => {
    expect(codeOf(relin, { fingerprint: 'nope' })).toBe('INVALID_INPUT')
    expect(codeOf(relin, { keySetId: KS.toUpperCase() })).toBe('INVALID_INPUT')
    expect(codeOf(relin, { kind: 'keys' })).toBe('INVALID_INPUT')
    expect(codeOf(relin, { kind: [] })).toBe('INVALID_INPUT')
  })
})
