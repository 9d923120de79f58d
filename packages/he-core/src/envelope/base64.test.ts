import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { base64ToBytes, bytesToBase64 } from './base64.ts'

describe('base64', () => {
  it('matches RFC 4648 test vectors', () => {
    const vectors: Array<[string, string]> = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ]
    for (const [plain, encoded] of vectors) {
      const bytes = new TextEncoder().encode(plain)
      expect(bytesToBase64(bytes)).toBe(encoded)
      expect(base64ToBytes(encoded)).toEqual(bytes)
    }
  })

  it('round-trips every byte value and many lengths, like Node’s Buffer', () => {
    for (let length = 0; length < 300; length += 7) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 151 + length) & 0xff)
      const text = bytesToBase64(bytes)
      expect(text).toBe(Buffer.from(bytes).toString('base64'))
      const back = base64ToBytes(text)
      expect(back).toEqual(bytes)
      expect(Object.getPrototypeOf(back)).toBe(Uint8Array.prototype)
    }
  })

  it('accepts unpadded input', () => {
    expect(base64ToBytes('Zg')).toEqual(new Uint8Array([0x66]))
    expect(base64ToBytes('Zm8')).toEqual(new Uint8Array([0x66, 0x6f]))
  })

  it('rejects what is not canonical base64 with INVALID_INPUT', () => {
    for (const bad of ['Z', 'Zg=', 'Z===', 'Zm9v\n', 'Zm 9v', 'Zm9v-_', 'Zh==', 'Zm9=', '=Zm9', 'Zm9vÿ', 'Zm=v']) {
      expect(() => base64ToBytes(bad), bad).toThrow(HeError)
      try {
        base64ToBytes(bad)
      } catch (error) {
        expect((error as HeError).code).toBe('INVALID_INPUT')
      }
    }
  })

  it('handles a multi-megabyte key in one go', () => {
    const bytes = Uint8Array.from({ length: 3_000_001 }, (_, i) => (i * 7) & 0xff)
    const text = bytesToBase64(bytes)
    expect(text.length).toBe(4_000_004)
    // Buffer.equals, not toEqual: deep equality over megabytes is what would be slow here.
    expect(Buffer.from(base64ToBytes(text)).equals(bytes)).toBe(true)
  })
})
