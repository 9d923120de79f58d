import { crc32 as zlibCrc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { crc32, tableCrc32 } from './crc32.ts'

const ascii = (text: string) => new TextEncoder().encode(text)

/** Bit-by-bit reference CRC-32, to check the sliced tables against. */
function referenceCrc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const byte of bytes) {
    c ^= byte
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

describe('crc32', () => {
  it('matches the standard check values', () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926)
    expect(crc32(new Uint8Array(0))).toBe(0)
    expect(crc32(ascii('a'))).toBe(0xe8b7be43)
    expect(crc32(ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339)
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad)
  })

  it('agrees with a bit-by-bit reference for every length 0..64 and unaligned views', () => {
    const data = Uint8Array.from({ length: 80 }, (_, i) => (i * 97 + 13) & 0xff)
    for (let start = 0; start < 8; start++) {
      for (let length = 0; length <= 64; length++) {
        const view = data.subarray(start, start + length)
        expect(crc32(view)).toBe(referenceCrc32(view))
      }
    }
  })

  it('computes zlib’s crc32 with its own tables on large buffers (the path every browser takes)', () => {
    const data = Uint8Array.from({ length: 1_000_003 }, (_, i) => (i * 2654435761) >>> 24)
    expect(tableCrc32(data)).toBe(zlibCrc32(data))
    expect(tableCrc32(data.subarray(5, 999_999))).toBe(zlibCrc32(data.subarray(5, 999_999)))
    // Chunked across the 8-byte blocks, continuing from a previous result.
    expect(tableCrc32(data.subarray(500_001), tableCrc32(data.subarray(0, 500_001)))).toBe(zlibCrc32(data))
    // And Node's own dispatch (zlib above 4 KiB) agrees with the tables.
    expect(crc32(data)).toBe(tableCrc32(data))
  })

  it('continues over chunks', () => {
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31) & 0xff)
    for (const cut of [0, 1, 7, 8, 9, 500, 999, 1000]) {
      expect(crc32(data.subarray(cut), crc32(data.subarray(0, cut)))).toBe(crc32(data))
    }
  })

  it('agrees with the reference on both sides of the zlib size threshold, chunked or not', () => {
    const data = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 2654435761) >>> 24)
    const expected = referenceCrc32(data)
    expect(crc32(data)).toBe(expected)
    expect(tableCrc32(data)).toBe(expected)
    for (const cut of [0, 100, 4095, 4096, 5000, 5904, 10_000]) {
      expect(crc32(data.subarray(cut), crc32(data.subarray(0, cut)))).toBe(expected)
      expect(tableCrc32(data.subarray(cut), tableCrc32(data.subarray(0, cut)))).toBe(expected)
    }
  })

  it('detects every single-bit flip in a block', () => {
    const data = Uint8Array.from({ length: 64 }, (_, i) => i)
    const original = crc32(data)
    for (let bit = 0; bit < data.length * 8; bit++) {
      const copy = data.slice()
      copy[bit >>> 3] = (copy[bit >>> 3] as number) ^ (1 << (bit & 7))
      expect(crc32(copy)).not.toBe(original)
    }
  })
})
