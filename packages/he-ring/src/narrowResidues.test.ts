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
})
