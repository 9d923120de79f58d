import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { fakeSealPayload, heErrorOf } from '../testing/forgedEnvelopes.ts'
import { encodeEnvelope } from './encodeEnvelope.ts'
import { splitEnvelopes } from './splitEnvelopes.ts'

const FP = '00112233445566778899aabbccddeeff'
const envelope = (bodyBytes: number) =>
  encodeEnvelope({ kind: 'plaintext', fingerprint: FP, payload: fakeSealPayload(bodyBytes) })

const concat = (parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts))

describe('splitEnvelopes', () => {
  const a = envelope(10)
  const b = envelope(200)
  const c = envelope(3)

  it('splits back-to-back envelopes into views of the input', () => {
    const bytes = concat([a, b, c])
    const parts = splitEnvelopes(bytes)
    expect(parts).toEqual([a, b, c])
    expect(parts[1]?.buffer).toBe(bytes.buffer)
    expect(splitEnvelopes(new Uint8Array(0))).toEqual([])
  })

  it('refuses one envelope past max before reading it (LIMIT_EXCEEDED, or the caller’s error)', () => {
    const bytes = concat([a, b, c])
    expect(splitEnvelopes(bytes, { max: 3 })).toHaveLength(3)
    const error = heErrorOf(() => splitEnvelopes(bytes, { max: 2 }))
    expect(error.code).toBe('LIMIT_EXCEEDED')
    expect(error.details).toEqual({ limit: 2 })
    const own = heErrorOf(() => splitEnvelopes(bytes, { max: 1, tooMany: () => new HeError('INVALID_ENVELOPE', 'x') }))
    expect(own.code).toBe('INVALID_ENVELOPE')
  })

  it('names the piece that is truncated or not an envelope', () => {
    const truncated = heErrorOf(() => splitEnvelopes(concat([a, b.subarray(0, b.length - 1)]), { what: 'query' }))
    expect(truncated.code).toBe('INVALID_ENVELOPE')
    expect(truncated.message).toMatch(/^query 1 is truncated: it declares \d+ bytes, \d+ remain/)
    const junk = heErrorOf(() => splitEnvelopes(concat([a, new Uint8Array(80).fill(7)])))
    expect(junk.code).toBe('INVALID_ENVELOPE')
    expect(junk.message).toMatch(/^envelope 1 /)
  })
})
