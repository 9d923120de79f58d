import { Buffer } from 'node:buffer'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { fakeSealPayload, heErrorOf } from '../testing/forgedEnvelopes.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { type EncodeEnvelopeInput, encodeEnvelope } from './encodeEnvelope.ts'
import { ENVELOPE_KINDS, type SealObjectKind } from './envelopeKinds.ts'
import { ENVELOPE_HEADER_BYTES } from './envelopeLayout.ts'
import { peekEnvelope } from './readEnvelopeHeader.ts'

const FP = '00112233445566778899aabbccddeeff'
const KS = 'fedcba98765432100123456789abcdef'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** One valid input per SEAL object kind. */
const samples: EncodeEnvelopeInput[] = [
  { kind: 'params', fingerprint: FP, payload: fakeSealPayload(60), meta: { scheme: 'bfv', security: 'tc128' } },
  { kind: 'secretKey', fingerprint: FP, keySetId: KS, payload: fakeSealPayload(100, 'zstd') },
  { kind: 'publicKey', fingerprint: FP, keySetId: KS, seeded: true, payload: fakeSealPayload(100, 'zlib') },
  { kind: 'relinKeys', fingerprint: FP, keySetId: KS, payload: fakeSealPayload(100) },
  {
    kind: 'galoisKeys',
    fingerprint: FP,
    keySetId: KS,
    seeded: true,
    payload: fakeSealPayload(100, 'zstd'),
    meta: { steps: [1, -4], elements: [3, 6145] },
  },
  { kind: 'plaintext', fingerprint: FP, payload: fakeSealPayload(33), meta: { level: 0, nttForm: true } },
  {
    kind: 'ciphertext',
    fingerprint: FP,
    payload: fakeSealPayload(7),
    meta: { label: 'x', level: 2, size: 2, scale: 2 ** 40 },
  },
]

describe('encodeEnvelope / decodeEnvelope', () => {
  it('round-trips every SEAL object kind with its fields, meta and payload', () => {
    for (const input of samples) {
      const bytes = encodeEnvelope(input)
      const envelope = decodeEnvelope(bytes, { kind: input.kind, fingerprint: FP })
      const payload = input.payload as Uint8Array
      expect(envelope.kind).toBe(input.kind)
      expect(envelope.fingerprint).toBe(FP)
      expect(envelope.keySetId).toBe(input.keySetId)
      expect(envelope.seeded).toBe(input.seeded === true)
      expect(envelope.compression).toBe(['none', 'zlib', 'zstd'][payload[5] as number])
      expect(envelope.meta).toEqual(input.meta ?? {})
      expect(envelope.version).toBe(1)
      expect(envelope.byteLength).toBe(bytes.length)
      expect(envelope.payload).toEqual(payload)
      // Zero copy: the payload and the whole envelope are views into the input.
      expect(envelope.payload.buffer).toBe(bytes.buffer)
      expect(envelope.bytes).toBe(bytes)
    }
  })

  it('writes the documented layout (the wire format is pinned here)', () => {
    const bytes = encodeEnvelope({
      kind: 'ciphertext',
      fingerprint: FP,
      keySetId: KS,
      seeded: true,
      payload: fakeSealPayload(4, 'zstd', 0xcd),
      meta: { level: 1 },
    })
    expect(bytes.length).toBe(52 + 11 + 20 + 4)
    expect(hex(bytes.subarray(0, 52))).toBe(
      '534258' + // "SBX"
        '01' + // format version
        '07' + // kind: ciphertext
        '01' + // flags: seeded
        '02' + // compression: zstd
        '00' + // reserved
        FP +
        KS +
        '1400000000000000' + // payload length 20 (uint64 LE)
        '0b000000', // meta length 11 (uint32 LE)
    )
    expect(new TextDecoder().decode(bytes.subarray(52, 63))).toBe('{"level":1}')
    expect(hex(bytes.subarray(63, 83))).toBe('5ea1100401020000140000000000000' + '0cdcdcdcd')
    // The trailer is zlib's CRC-32 of everything before it, little-endian.
    expect(new DataView(bytes.buffer).getUint32(83, true)).toBe(zlibCrc32(bytes.subarray(0, 83)))
  })

  it('numbers kinds 1..8 in a fixed order', () => {
    expect(ENVELOPE_KINDS).toEqual([
      'params',
      'secretKey',
      'publicKey',
      'relinKeys',
      'galoisKeys',
      'plaintext',
      'ciphertext',
      'bundle',
    ])
  })

  it('decodes from a Node Buffer into plain Uint8Array views without copying', () => {
    const bytes = encodeEnvelope(samples[6] as EncodeEnvelopeInput)
    const pooled = Buffer.concat([Buffer.from('xyz'), bytes]).subarray(3)
    const envelope = decodeEnvelope(pooled, { kind: 'ciphertext' })
    expect(envelope.payload.constructor.name).toBe('Uint8Array')
    expect(envelope.bytes.constructor.name).toBe('Uint8Array')
    expect(envelope.payload.buffer).toBe(pooled.buffer)
  })

  it('peeks at the header from its first 52 bytes alone', () => {
    const bytes = encodeEnvelope(samples[4] as EncodeEnvelopeInput)
    const header = peekEnvelope(bytes.subarray(0, ENVELOPE_HEADER_BYTES))
    expect(header).toMatchObject({
      kind: 'galoisKeys',
      seeded: true,
      compression: 'zstd',
      fingerprint: FP,
      keySetId: KS,
      byteLength: bytes.length,
    })
  })

  it('rejects bad input with INVALID_INPUT, naming the field', () => {
    const payload = fakeSealPayload(10)
    const bad: Array<[unknown, RegExp]> = [
      [{ kind: 'ciphertext', fingerprint: 'ABCDEF', payload }, /fingerprint must be 32 lowercase hex/],
      [{ kind: 'ciphertext', fingerprint: FP.toUpperCase(), payload }, /fingerprint/],
      [{ kind: 'ciphertext', fingerprint: FP, keySetId: 'xyz', payload }, /keySetId/],
      [{ kind: 'ciphertext', fingerprint: FP, keySetId: '0'.repeat(32), payload }, /all zeros/],
      [{ kind: 'params', fingerprint: FP, keySetId: KS, payload }, /params belongs to no key set/],
      [{ kind: 'plaintext', fingerprint: FP, keySetId: KS, payload }, /plaintext belongs to no key set/],
      [{ kind: 'secretKey', fingerprint: FP, seeded: true, payload }, /secretKey cannot be seeded/],
      [{ kind: 'galoisKeys', fingerprint: FP, payload }, /galoisKeys envelope meta: elements/],
      [
        { kind: 'galoisKeys', fingerprint: FP, payload, meta: { elements: [4] } },
        /elements.0: Galois elements are odd/,
      ],
      [{ kind: 'ciphertext', fingerprint: FP, payload, meta: { size: 1 } }, /ciphertext envelope meta: size/],
      [{ kind: 'ciphertext', fingerprint: FP, payload, meta: { label: 'x'.repeat(201) } }, /label/],
      [{ kind: 'bundle', fingerprint: FP, payload }, /use encodeBundle/],
      [{ kind: 'keys', fingerprint: FP, payload }, /unknown envelope kind "keys"/],
      [{ kind: 'ciphertext', fingerprint: FP, payload: 'bytes' }, /expected bytes/],
      [{ kind: 'ciphertext', fingerprint: FP, payload: new Uint8Array(8) }, /shorter than SEAL's 16-byte header/],
      [{ kind: 'ciphertext', fingerprint: FP, payload: new Uint8Array(40) }, /magic 0x0000/],
    ]
    for (const [input, message] of bad) {
      const error = heErrorOf(() => encodeEnvelope(input as EncodeEnvelopeInput))
      expect(error.code, String(message)).toBe('INVALID_INPUT')
      expect(error.message).toMatch(message)
    }
  })

  it('checks every field of the payload’s SEAL header', () => {
    const cases: Array<[(view: DataView) => void, RegExp]> = [
      [(v) => v.setUint8(2, 32), /declares a 32-byte header/],
      [(v) => v.setUint8(3, 3), /saved by SEAL 3\.1, expected 4\.1/],
      [(v) => v.setUint8(4, 0), /saved by SEAL 4\.0/],
      [(v) => v.setUint8(5, 3), /unknown compression mode 3/],
      [(v) => v.setUint8(6, 1), /non-zero reserved/],
      [(v) => v.setUint32(8, 27, true), /declares 27 bytes but the payload is 26/],
      [(v) => v.setUint32(12, 1, true), /declares 4294967322 bytes/],
    ]
    for (const [tamper, message] of cases) {
      const payload = fakeSealPayload(10)
      tamper(new DataView(payload.buffer))
      const error = heErrorOf(() => encodeEnvelope({ kind: 'plaintext', fingerprint: FP, payload }))
      expect(error.code).toBe('INVALID_INPUT')
      expect(error.message).toMatch(message)
    }
  })

  it('types meta per kind', () => {
    const kinds: SealObjectKind[] = ['params', 'plaintext']
    expect(kinds).toHaveLength(2)
    const envelope = decodeEnvelope(encodeEnvelope(samples[4] as EncodeEnvelopeInput), { kind: 'galoisKeys' })
    const elements: number[] = envelope.meta.elements
    expect(elements).toEqual([3, 6145])
  })
})
