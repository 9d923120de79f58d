import { Buffer } from 'node:buffer'
import { zstdCompressSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { SealException } from '../errors/SealException.ts'
import { sealExceptionCount } from '../errors/toHeError.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { SealScope } from '../scope/SealScope.ts'
import { fakeSealPayload, heErrorOf, scrambleParmsId } from '../testing/forgedEnvelopes.ts'
import { decodeBundle } from './decodeBundle.ts'
import { encodeBundle } from './encodeBundle.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import { loadSealObject, loadSealParams } from './loadSealObject.ts'
import { saveSealObject } from './saveSealObject.ts'
import { makeSealTestFixture, type SealTestFixture } from './sealTestFixture.ts'

const KEY_SET = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
const OTHER_KEY_SET = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'
const scope = new SealScope()
let f: SealTestFixture
let other: SealTestFixture
let otherParams: HeContext
let envelopes: {
  ciphertext: Uint8Array
  plaintext: Uint8Array
  relin: Uint8Array
  galois: Uint8Array
  secret: Uint8Array
  params: Uint8Array
}

beforeAll(async () => {
  const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096 })
  f = makeSealTestFixture(ctx, scope, KEY_SET)
  // Same parameters, another secret key: SEAL alone would load its ciphertexts and decrypt garbage.
  other = makeSealTestFixture(ctx, scope, OTHER_KEY_SET)
  otherParams = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 65537 } })
  const common = { fingerprint: ctx.fingerprint, keySetId: KEY_SET, compression: 'none' } as const
  envelopes = {
    ciphertext: saveSealObject(f.ciphertext, { ...common, kind: 'ciphertext' }),
    plaintext: saveSealObject(f.plaintext, { fingerprint: ctx.fingerprint, kind: 'plaintext', compression: 'none' }),
    relin: saveSealObject(f.relinKeys, { ...common, kind: 'relinKeys' }),
    galois: saveSealObject(f.galoisKeys, { ...common, kind: 'galoisKeys', meta: { elements: f.galoisElements } }),
    secret: saveSealObject(f.secretKey, { ...common, kind: 'secretKey' }),
    params: saveSealObject(ctx.parms, { fingerprint: ctx.fingerprint, kind: 'params', compression: 'none' }),
  }
})
afterAll(() => scope.dispose())

/** Asserts `fn` throws `code` without SEAL throwing anything (the bytes never reached it). */
function refusedBeforeSeal(fn: () => unknown, code: string): HeError {
  const before = sealExceptionCount()
  const error = heErrorOf(fn)
  expect(error.code, error.message).toBe(code)
  expect(sealExceptionCount()).toBe(before)
  return error
}

describe('loadSealObject refuses bad envelopes before SEAL sees them', () => {
  it('relin keys offered as Galois keys (SEAL alone would accept them)', () => {
    const galoisKeys = scope.track(new f.ctx.seal.GaloisKeys())
    const error = refusedBeforeSeal(
      () => loadSealObject(galoisKeys, f.ctx, envelopes.relin, { kind: 'galoisKeys', keySetId: KEY_SET }),
      'ENVELOPE_KIND_MISMATCH',
    )
    expect(error.message).toBe('envelope: expected galoisKeys, got relinKeys')
    // Why the envelope carries the kind: SEAL loads RelinKeys bytes into GaloisKeys without complaint.
    galoisKeys.loadFromArray(f.ctx.context, f.relinKeys.saveToArray(f.ctx.seal.ComprModeType.none))
    expect(galoisKeys.size()).toBe(1)
  })

  it('a ciphertext of other parameters', () => {
    const bytes = saveSealObject(f.ciphertext, {
      kind: 'ciphertext',
      fingerprint: otherParams.fingerprint,
      keySetId: KEY_SET,
      compression: 'zstd',
    })
    const target = scope.track(new f.ctx.seal.Ciphertext())
    const error = refusedBeforeSeal(
      () => loadSealObject(target, f.ctx, bytes, { kind: 'ciphertext' }),
      'PARAMS_MISMATCH',
    )
    expect(error.message).toContain(`expected params fingerprint ${f.ctx.fingerprint}, got ${otherParams.fingerprint}`)
    const params = scope.track(new f.ctx.seal.EncryptionParameters(f.ctx.seal.SchemeType.none))
    refusedBeforeSeal(
      () => loadSealParams(params, envelopes.params, { fingerprint: otherParams.fingerprint }),
      'PARAMS_MISMATCH',
    )
  })

  it('a ciphertext under another key set', () => {
    const bytes = saveSealObject(other.ciphertext, {
      kind: 'ciphertext',
      fingerprint: f.ctx.fingerprint,
      keySetId: OTHER_KEY_SET,
      compression: 'zstd',
    })
    const target = scope.track(new f.ctx.seal.Ciphertext())
    const error = refusedBeforeSeal(
      () => loadSealObject(target, f.ctx, bytes, { kind: 'ciphertext', keySetId: KEY_SET }),
      'KEY_SET_MISMATCH',
    )
    expect(error.message).toContain(`expected key set ${KEY_SET}, got ${OTHER_KEY_SET}`)
  })

  it('a secret key where secret keys are refused, alone or in a bundle', () => {
    const target = scope.track(new f.ctx.seal.SecretKey())
    refusedBeforeSeal(
      () => loadSealObject(target, f.ctx, envelopes.secret, { kind: 'secretKey', refuseSecretKey: true }),
      'SECRET_KEY_REFUSED',
    )
    const upload = encodeBundle([envelopes.relin, envelopes.secret])
    refusedBeforeSeal(() => decodeBundle(upload, { refuseSecretKey: true }), 'SECRET_KEY_REFUSED')
  })

  it('a target of the wrong class is the caller’s bug', () => {
    const relinTarget = scope.track(new f.ctx.seal.RelinKeys())
    const error = refusedBeforeSeal(
      // The node-seal types of RelinKeys and GaloisKeys are structurally identical, so only the runtime check sees this.
      () => loadSealObject(relinTarget, f.ctx, envelopes.galois, { kind: 'galoisKeys' }),
      'INVALID_INPUT',
    )
    expect(error.message).toBe('cannot load a galoisKeys into a RelinKeys')
  })

  it('a deleted target is a binding error (SEAL_ERROR), not an invalid envelope', () => {
    const target = new f.ctx.seal.Ciphertext()
    target.delete()
    const error = heErrorOf(() => loadSealObject(target, f.ctx, envelopes.ciphertext, { kind: 'ciphertext' }))
    expect(error.code).toBe('SEAL_ERROR')
    expect(error.message).toMatch(/deleted/)
  })

  it('empty, one byte, truncated, corrupted, raw SEAL bytes, a Buffer of garbage', () => {
    const target = scope.track(new f.ctx.seal.Ciphertext())
    const load = (bytes: Uint8Array) => () => loadSealObject(target, f.ctx, bytes, { kind: 'ciphertext' })
    const bytes = envelopes.ciphertext
    refusedBeforeSeal(load(new Uint8Array(0)), 'INVALID_ENVELOPE')
    refusedBeforeSeal(load(new Uint8Array([0x53])), 'INVALID_ENVELOPE')
    for (const length of [1, 10, 51, 52, 60, 100, 1000, bytes.length >> 1, bytes.length - 5, bytes.length - 1]) {
      refusedBeforeSeal(load(bytes.subarray(0, length)), 'INVALID_ENVELOPE')
    }
    for (const offset of [5, 20, 30, 60, 1000, bytes.length >> 1, bytes.length - 5, bytes.length - 1]) {
      const copy = bytes.slice()
      copy[offset] = (copy[offset] as number) ^ 0x04
      refusedBeforeSeal(load(copy), 'ENVELOPE_INTEGRITY')
    }
    refusedBeforeSeal(load(f.ciphertext.saveToArray(f.ctx.seal.ComprModeType.none)), 'INVALID_ENVELOPE')
    refusedBeforeSeal(load(Buffer.from('definitely not an envelope')), 'INVALID_ENVELOPE')
  })
})

describe('a forged envelope that passes every check', () => {
  it('fails inside SEAL as INVALID_ENVELOPE (the checksum is not authentication)', () => {
    // Well-formed down to every count (the pre-parse passes it), but for no parameters SEAL knows.
    const forged = scrambleParmsId(f.ciphertext.saveToArray(f.ctx.seal.ComprModeType.none) as Uint8Array)
    for (const compression of ['none', 'zstd'] as const) {
      const payload = compression === 'none' ? forged : recompress(forged)
      const bytes = encodeEnvelope({ kind: 'ciphertext', fingerprint: f.ctx.fingerprint, keySetId: KEY_SET, payload })
      const target = scope.track(new f.ctx.seal.Ciphertext())
      const before = sealExceptionCount()
      const error = heErrorOf(() => loadSealObject(target, f.ctx, bytes, { kind: 'ciphertext', keySetId: KEY_SET }))
      expect(error.code, error.message).toBe('INVALID_ENVELOPE')
      expect(error.message).toBe(
        'the ciphertext envelope passed its checks but SEAL could not load the ciphertext: its data is not valid for these parameters',
      )
      // SEAL's own words stay out of the message, in the cause (for logs).
      expect(error.cause).toBeInstanceOf(SealException)
      // This one did reach SEAL: servers count these and recycle the worker (NODE-SEAL-FACTS.md §4).
      expect(sealExceptionCount()).toBe(before + 1)
    }
  })

  it('never reaches SEAL when a count or size does not add up', () => {
    for (const compression of ['none', 'zstd'] as const) {
      for (const fill of [0x00, 0xab]) {
        const bytes = encodeEnvelope({
          kind: 'ciphertext',
          fingerprint: f.ctx.fingerprint,
          keySetId: KEY_SET,
          payload:
            compression === 'none'
              ? fakeSealPayload(200, compression, fill)
              : recompress(fakeSealPayload(200, 'none', fill)),
        })
        const before = sealExceptionCount()
        const error = heErrorOf(() =>
          loadSealObject(scope.track(new f.ctx.seal.Ciphertext()), f.ctx, bytes, {
            kind: 'ciphertext',
            keySetId: KEY_SET,
          }),
        )
        expect(error.code, error.message).toBe('INVALID_ENVELOPE')
        expect(sealExceptionCount()).toBe(before)
      }
    }
  })
})

/** The same SEAL object, zstd-compressed the way SEAL would (header kept, size updated). */
function recompress(payload: Uint8Array): Uint8Array {
  const body = zstdCompressSync(payload.subarray(16))
  const out = new Uint8Array(16 + body.length)
  out.set(payload.subarray(0, 16))
  out.set(body, 16)
  const view = new DataView(out.buffer)
  view.setUint8(5, 2)
  view.setUint32(8, out.length, true)
  return out
}

/** A deterministic PRNG (mulberry32), so a failing mutation can be replayed. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One random corruption: bit flips, byte writes, truncation, extension, insertion, deletion, splices. */
function mutate(bytes: Uint8Array, next: () => number, donor: Uint8Array): Uint8Array {
  const int = (n: number) => Math.floor(next() * n)
  // Half of the mutations hit the header, meta and SEAL header, where structure lives.
  const position = () => (next() < 0.5 ? int(Math.min(bytes.length, 120)) : int(bytes.length))
  switch (int(8)) {
    case 0: {
      const copy = bytes.slice()
      const at = position()
      copy[at] = (copy[at] as number) ^ (1 << int(8))
      return copy
    }
    case 1: {
      const copy = bytes.slice()
      for (let i = 1 + int(4); i > 0; i--) copy[position()] = int(256)
      return copy
    }
    case 2:
      return bytes.slice(0, int(bytes.length))
    case 3: {
      const extra = Uint8Array.from({ length: 1 + int(64) }, () => int(256))
      const copy = new Uint8Array(bytes.length + extra.length)
      copy.set(bytes)
      copy.set(extra, bytes.length)
      return copy
    }
    case 4: {
      const at = position()
      const copy = new Uint8Array(bytes.length + 1)
      copy.set(bytes.subarray(0, at))
      copy[at] = int(256)
      copy.set(bytes.subarray(at), at + 1)
      return copy
    }
    case 5: {
      const at = position()
      const length = 1 + int(16)
      const copy = new Uint8Array(bytes.length - Math.min(length, bytes.length - at))
      copy.set(bytes.subarray(0, at))
      copy.set(bytes.subarray(at + length), at)
      return copy
    }
    case 6: {
      // Splice a run of another valid envelope in: valid-looking structure in the wrong place.
      const copy = bytes.slice()
      const at = position()
      const from = int(donor.length)
      copy.set(donor.subarray(from, from + Math.min(1 + int(64), copy.length - at)), at)
      return copy
    }
    default: {
      const copy = bytes.slice()
      const view = new DataView(copy.buffer)
      // Rewrite a length field to a random value.
      const field = [40, 44, 48][int(3)] as number
      view.setUint32(field, next() < 0.5 ? int(2 ** 32) : int(copy.length), true)
      return copy
    }
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i])
}

describe('property: 2,000 random mutations of a valid envelope', () => {
  it('are all refused with an envelope code, never reach SEAL, never throw anything but HeError', () => {
    const next = random(20240607)
    const target = scope.track(new f.ctx.seal.Ciphertext())
    const original = envelopes.ciphertext
    const before = sealExceptionCount()
    const seen = new Map<string, number>()
    let tried = 0
    while (tried < 2000) {
      const mutated = mutate(original, next, envelopes.relin)
      if (sameBytes(mutated, original)) continue
      tried++
      let code = 'ACCEPTED'
      try {
        loadSealObject(target, f.ctx, mutated, { kind: 'ciphertext', keySetId: KEY_SET, refuseSecretKey: true })
      } catch (error) {
        if (!(error instanceof HeError)) expect.unreachable(`mutation ${tried} threw a non-HeError: ${String(error)}`)
        code = error.code
      }
      expect(['INVALID_ENVELOPE', 'ENVELOPE_INTEGRITY'], `mutation ${tried}`).toContain(code)
      seen.set(code, (seen.get(code) ?? 0) + 1)
    }
    expect(sealExceptionCount()).toBe(before)
    // Both kinds of refusal were exercised.
    expect(seen.get('INVALID_ENVELOPE')).toBeGreaterThan(100)
    expect(seen.get('ENVELOPE_INTEGRITY')).toBeGreaterThan(100)
  })

  it('on a bundle, too (500 mutations)', () => {
    const next = random(7)
    const bundle = encodeBundle([envelopes.plaintext, envelopes.ciphertext])
    let tried = 0
    while (tried < 500) {
      const mutated = mutate(bundle, next, envelopes.relin)
      if (sameBytes(mutated, bundle)) continue
      tried++
      const error = heErrorOf(() => decodeBundle(mutated, { keySetId: KEY_SET, refuseSecretKey: true }))
      expect(['INVALID_ENVELOPE', 'ENVELOPE_INTEGRITY'], `mutation ${tried}: ${error.message}`).toContain(error.code)
    }
  })
})
