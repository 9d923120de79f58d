import { describe, expect, it } from 'vitest'
import { narrowResidues } from './narrowResidues.ts'

describe('narrowResidues', () => {
  it('keeps the low halves of u64 residues and counts those at or above their prime (2^32 or more included)', () => {
    const n = 2
    const primes = [97n, 193n]
    // Two polynomials × two primes × n: words 0–1 and 4–5 belong to 97, 2–3 and 6–7 to 193.
    const values = [0n, 96n, 192n, 1n, 97n, 5n, 193n, (1n << 32n) + 3n]
    const out = new Uint32Array(values.length)
    const unreduced = narrowResidues(new Uint8Array(BigUint64Array.from(values).buffer), out, primes, n)
    expect(unreduced).toBe(3)
    expect([...out]).toEqual([0, 96, 192, 1, 97, 5, 193, 3])
    const reduced = values.slice(0, 4)
    expect(narrowResidues(new Uint8Array(BigUint64Array.from(reduced).buffer), new Uint32Array(4), primes, n)).toBe(0)
  })
  it('reads an aligned view in place and an unaligned one through a copy, with the same result', () => {
    const n = 4
    const primes = [97n, 193n]
    const values = [1n, 2n, 96n, 97n, 5n, 192n, 193n, 0n]
    const expected = [1, 2, 96, 97, 5, 192, 193, 0]
    for (const offset of [8, 3]) {
      const bytes = new Uint8Array(offset + values.length * 8)
      bytes.set(new Uint8Array(BigUint64Array.from(values).buffer), offset)
      const out = new Uint32Array(values.length)
      expect(narrowResidues(bytes.subarray(offset), out, primes, n), `offset ${offset}`).toBe(2)
      expect([...out]).toEqual(expected)
    }
  })

  it('counts words past the end of a short input as unreduced, and zeroes them', () => {
    const out = new Uint32Array(4).fill(7)
    expect(narrowResidues(new Uint8Array(BigUint64Array.from([1n, 2n]).buffer), out, [97n], 4)).toBe(2)
    expect([...out]).toEqual([1, 2, 0, 0])
  })
})
