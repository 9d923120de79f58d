import { describe, expect, it } from 'vitest'
import { fakeSealPayload, heErrorOf, rechecksum } from '../testing/forgedEnvelopes.ts'
import { decodeBundle } from './decodeBundle.ts'
import { decodeEnvelope } from './decodeEnvelope.ts'
import { encodeBundle } from './encodeBundle.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import type { EnvelopeKind } from './envelopeKinds.ts'
import { ENVELOPE_HEADER_BYTES } from './envelopeLayout.ts'
import { writeEnvelope } from './writeEnvelope.ts'

const FP = '00112233445566778899aabbccddeeff'
const OTHER_FP = 'ffeeddccbbaa99887766554433221100'
const KS = 'fedcba98765432100123456789abcdef'
const OTHER_KS = '0123456789abcdeffedcba9876543210'

const ciphertext = (keySetId: string | null = KS, fingerprint = FP, fill = 0xab) =>
  encodeEnvelope({
    kind: 'ciphertext',
    fingerprint,
    ...(keySetId ? { keySetId } : {}),
    payload: fakeSealPayload(40, 'none', fill),
  })
const relin = encodeEnvelope({
  kind: 'relinKeys',
  fingerprint: FP,
  keySetId: KS,
  seeded: true,
  payload: fakeSealPayload(60),
})
const galois = encodeEnvelope({
  kind: 'galoisKeys',
  fingerprint: FP,
  keySetId: KS,
  payload: fakeSealPayload(80, 'zstd'),
  meta: { steps: [1], elements: [3] },
})
const plaintext = encodeEnvelope({ kind: 'plaintext', fingerprint: FP, payload: fakeSealPayload(30) })
const secret = encodeEnvelope({ kind: 'secretKey', fingerprint: FP, keySetId: KS, payload: fakeSealPayload(30) })

/** A bundle with any meta and items, and a correct outer checksum. */
function forgedBundle(items: Uint8Array[], meta: unknown, fields: { keySetId?: string } = {}): Uint8Array {
  return writeEnvelope({
    kind: 'bundle',
    seeded: false,
    compression: 'none',
    fingerprint: FP,
    keySetId: fields.keySetId,
    meta: new TextEncoder().encode(JSON.stringify(meta)),
    payload: items,
  })
}

describe('encodeBundle / decodeBundle', () => {
  it('round-trips items, labels, the shared fingerprint and key set, without copying', () => {
    const bytes = encodeBundle([relin, decodeEnvelope(galois), plaintext], {
      label: 'evaluation keys',
      labels: ['relin', 'galois', 'mask'],
    })
    const bundle = decodeBundle(bytes, { fingerprint: FP, keySetId: KS, refuseSecretKey: true })
    expect(bundle.kind).toBe('bundle')
    expect(bundle.fingerprint).toBe(FP)
    expect(bundle.keySetId).toBe(KS)
    expect(bundle.meta).toEqual({ label: 'evaluation keys', count: 3, labels: ['relin', 'galois', 'mask'] })
    expect(bundle.items.map((item) => item.kind)).toEqual(['relinKeys', 'galoisKeys', 'plaintext'])
    expect(bundle.items[0]?.bytes).toEqual(relin)
    expect(bundle.items[1]?.meta).toEqual({ steps: [1], elements: [3] })
    expect(bundle.items[0]?.seeded).toBe(true)
    for (const item of bundle.items) expect(item.payload.buffer).toBe(bytes.buffer)
    // Each item is a valid stand-alone envelope again.
    expect(decodeEnvelope(bundle.items[2]?.bytes as Uint8Array).kind).toBe('plaintext')
  })

  it('a bundle of keyless objects names no key set', () => {
    const bundle = decodeBundle(encodeBundle([plaintext, plaintext]))
    expect(bundle.keySetId).toBeUndefined()
    expect(bundle.items).toHaveLength(2)
  })

  it('pins item kinds, e.g. a query of ciphertexts', () => {
    const query = encodeBundle([ciphertext(), ciphertext(), ciphertext()])
    expect(decodeBundle(query, { itemKind: 'ciphertext', maxCount: 3 }).items).toHaveLength(3)
    const keys = encodeBundle([relin, galois])
    const error = heErrorOf(() => decodeBundle(keys, { itemKind: 'ciphertext' }))
    expect(error.code).toBe('ENVELOPE_KIND_MISMATCH')
    expect(error.message).toBe('bundle item 0: expected ciphertext, got relinKeys')
    expect(decodeBundle(keys, { itemKind: ['relinKeys', 'galoisKeys'] }).items).toHaveLength(2)
  })

  it('refuses a secret key inside a bundle when asked to', () => {
    const bytes = encodeBundle([relin, secret])
    expect(heErrorOf(() => decodeBundle(bytes, { refuseSecretKey: true })).code).toBe('SECRET_KEY_REFUSED')
    expect(decodeBundle(bytes).items[1]?.kind).toBe('secretKey')
  })

  it('applies the expected key set to the bundle and to every item', () => {
    const bytes = encodeBundle([relin, galois])
    expect(heErrorOf(() => decodeBundle(bytes, { keySetId: OTHER_KS })).code).toBe('KEY_SET_MISMATCH')
    expect(heErrorOf(() => decodeBundle(bytes, { fingerprint: OTHER_FP })).code).toBe('PARAMS_MISMATCH')
    // An unlabelled ciphertext in a bundle without key set fails a key-set expectation item by item.
    const anonymous = encodeBundle([plaintext, ciphertext(null)])
    const error = heErrorOf(() => decodeBundle(anonymous, { keySetId: KS }))
    expect(error.code).toBe('KEY_SET_MISMATCH')
    expect(error.message).toMatch(/^bundle item 1: expected key set .* got none/)
  })

  it('is not a bundle, or not a bundle of this kind', () => {
    expect(heErrorOf(() => decodeBundle(relin)).message).toBe('bundle: expected bundle, got relinKeys')
    expect(heErrorOf(() => decodeEnvelope(encodeBundle([relin]), { kind: 'relinKeys' })).code).toBe(
      'ENVELOPE_KIND_MISMATCH',
    )
  })

  it('encodeBundle refuses what it could not decode', () => {
    const cases: Array<[() => unknown, string, RegExp]> = [
      [() => encodeBundle([]), 'INVALID_INPUT', /at least one/],
      [() => encodeBundle([encodeBundle([relin])]), 'INVALID_INPUT', /bundle item 0 is a bundle; bundles do not nest/],
      [
        () => encodeBundle([relin, ciphertext(KS, OTHER_FP)]),
        'PARAMS_MISMATCH',
        /bundle item 1 has params fingerprint/,
      ],
      [() => encodeBundle([relin, ciphertext(OTHER_KS)]), 'KEY_SET_MISMATCH', /at most one key set/],
      [() => encodeBundle([relin, relin, relin], { maxCount: 2 }), 'LIMIT_EXCEEDED', /at most 2 envelopes, got 3/],
      [() => encodeBundle([relin], { labels: ['a', 'b'] }), 'INVALID_INPUT', /labels must have one entry per envelope/],
      [() => encodeBundle([relin.subarray(1)]), 'INVALID_ENVELOPE', /bundle item 0 is not a sealbox envelope/],
      [() => encodeBundle([relin, flipLastByte(galois)]), 'ENVELOPE_INTEGRITY', /bundle item 1 is corrupted/],
    ]
    for (const [fn, code, message] of cases) {
      const error = heErrorOf(fn)
      expect(error.code, String(message)).toBe(code)
      expect(error.message).toMatch(message)
    }
  })

  it('a declared count over the cap is refused before any item is parsed', () => {
    // 5000 declared, none present: only the count check can speak first.
    const bytes = forgedBundle([relin], { count: 5000 })
    const error = heErrorOf(() => decodeBundle(bytes))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.message).toBe('bundle holds 5000 envelopes; at most 1024 are accepted here')
    const small = encodeBundle([ciphertext(), ciphertext(), ciphertext()])
    expect(heErrorOf(() => decodeBundle(small, { maxCount: 2 })).code).toBe('LIMIT_EXCEEDED')
  })

  it('structure: count mismatch, nesting, truncated or corrupted items, foreign items', () => {
    const nested = forgedBundle([encodeBundle([relin])], { count: 1 })
    const truncatedItem = forgedBundle([relin, galois.subarray(0, galois.length - 10)], { count: 2 }, { keySetId: KS })
    const shortItem = forgedBundle([relin, galois.subarray(0, 20)], { count: 2 }, { keySetId: KS })
    const corruptItem = forgedBundle([relin, flipLastByte(galois)], { count: 2 }, { keySetId: KS })
    const junk = forgedBundle([relin, new Uint8Array([1, 2, 3])], { count: 2 }, { keySetId: KS })
    const cases: Array<[Uint8Array, string, RegExp]> = [
      [
        forgedBundle([relin, galois], { count: 1 }, { keySetId: KS }),
        'INVALID_ENVELOPE',
        /declares 1 envelopes but holds more/,
      ],
      [forgedBundle([relin], { count: 2 }, { keySetId: KS }), 'INVALID_ENVELOPE', /declares 2 envelopes but holds 1/],
      [forgedBundle([relin], { count: 0 }, { keySetId: KS }), 'INVALID_ENVELOPE', /bundle envelope meta: count/],
      [
        forgedBundle([relin], { count: 1, labels: ['a', 'b'] }, { keySetId: KS }),
        'INVALID_ENVELOPE',
        /labels must have one entry/,
      ],
      [nested, 'INVALID_ENVELOPE', /bundle item 0 is a bundle; bundles do not nest/],
      [truncatedItem, 'INVALID_ENVELOPE', /bundle item 1 is truncated: it declares \d+ bytes, \d+ remain/],
      [shortItem, 'INVALID_ENVELOPE', /bundle item 1 is truncated: 20 bytes/],
      [corruptItem, 'ENVELOPE_INTEGRITY', /bundle item 1 is corrupted/],
      [junk, 'INVALID_ENVELOPE', /bundle item 1 is not a sealbox envelope/],
      [
        forgedBundle([relin, ciphertext(KS, OTHER_FP)], { count: 2 }, { keySetId: KS }),
        'PARAMS_MISMATCH',
        /bundle item 1: expected params fingerprint/,
      ],
      [
        forgedBundle([relin, ciphertext(OTHER_KS)], { count: 2 }, { keySetId: KS }),
        'KEY_SET_MISMATCH',
        /bundle item 1 belongs to key set/,
      ],
      [forgedBundle([relin], { count: 1 }), 'KEY_SET_MISMATCH', /but the bundle to none/],
    ]
    for (const [bytes, code, message] of cases) {
      const error = heErrorOf(() => decodeBundle(bytes))
      expect(error.code, String(message)).toBe(code)
      expect(error.message).toMatch(message)
    }
  })

  it('outer corruption is caught by the outer checksum', () => {
    const bytes = encodeBundle([relin, galois])
    for (const offset of [10, ENVELOPE_HEADER_BYTES + 3, bytes.length - 100, bytes.length - 1]) {
      const copy = bytes.slice()
      copy[offset] = (copy[offset] as number) ^ 0x10
      expect(heErrorOf(() => decodeBundle(copy)).code).toBe('ENVELOPE_INTEGRITY')
    }
    // Corrupt an item and fix only the outer checksum: the item's own checksum still catches it.
    const copy = bytes.slice()
    copy[copy.length - 50] = (copy[copy.length - 50] as number) ^ 0x10
    expect(heErrorOf(() => decodeBundle(rechecksum(copy))).message).toMatch(/bundle item 1 is corrupted/)
  })

  it('itemChecksums: false trusts the outer checksum alone (one pass over the bytes)', () => {
    const bytes = encodeBundle([relin, galois])
    expect(decodeBundle(bytes, { itemChecksums: false }).items.map((item) => item.kind)).toEqual([
      'relinKeys',
      'galoisKeys',
    ])
    // Outer corruption is still caught…
    const outer = bytes.slice()
    outer[bytes.length - 50] = (outer[bytes.length - 50] as number) ^ 0x10
    expect(heErrorOf(() => decodeBundle(outer, { itemChecksums: false })).code).toBe('ENVELOPE_INTEGRITY')
    // …and an item whose own CRC is wrong inside a re-checksummed bundle passes: the writer vouched for it.
    expect(decodeBundle(rechecksum(outer), { itemChecksums: false }).items).toHaveLength(2)
  })

  it('never nests deeper than one level however items are labelled', () => {
    const kinds: EnvelopeKind[] = decodeBundle(encodeBundle([relin, galois, plaintext])).items.map((i) => i.kind)
    expect(kinds).not.toContain('bundle')
  })
})

function flipLastByte(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice()
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0xff
  return copy
}
