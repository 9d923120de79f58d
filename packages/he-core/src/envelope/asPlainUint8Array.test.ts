import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { asPlainUint8Array, type BytesLike } from './asPlainUint8Array.ts'

describe('asPlainUint8Array', () => {
  it('returns a plain Uint8Array as is', () => {
    const bytes = new Uint8Array([1, 2, 3])
    expect(asPlainUint8Array(bytes)).toBe(bytes)
  })

  it('views a Buffer (with its pool offset) without copying', () => {
    const buffer = Buffer.from('hello sealbox')
    const view = asPlainUint8Array(buffer.subarray(6))
    expect(view.constructor.name).toBe('Uint8Array')
    expect(view.buffer).toBe(buffer.buffer)
    expect(new TextDecoder().decode(view)).toBe('sealbox')
    buffer[6] = 0x53
    expect(view[0]).toBe(0x53)
  })

  it('views other typed arrays, DataViews and ArrayBuffers', () => {
    const words = new Uint32Array([0x04030201])
    expect(Array.from(asPlainUint8Array(words))).toEqual([1, 2, 3, 4])
    expect(Array.from(asPlainUint8Array(new DataView(words.buffer, 1, 2)))).toEqual([2, 3])
    expect(Array.from(asPlainUint8Array(words.buffer))).toEqual([1, 2, 3, 4])
  })

  it('refuses what is not bytes', () => {
    for (const value of ['abc', 5, null, [1, 2], {}]) {
      expect(() => asPlainUint8Array(value as unknown as BytesLike)).toThrow(HeError)
    }
  })
})
