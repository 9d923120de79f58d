import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { type ResidueRun, readResidueRun, residueRunBytes, writeResidueRun } from './residueBitStream.ts'

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state
  }
}

/** The stream by definition: every residue's bits, least significant first, as one BigInt. */
function streamOracle(run: ResidueRun, residues: bigint[]): Uint8Array {
  let stream = 0n
  let bit = 0n
  let k = 0
  for (let p = 0; p < run.polys; p++) {
    for (const width of run.widths) {
      for (let j = 0; j < run.polyModulusDegree; j++, k++) {
        stream |= (residues[k] as bigint) << bit
        bit += BigInt(width)
      }
    }
  }
  const bytes = new Uint8Array(residueRunBytes(run))
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number((stream >> BigInt(8 * i)) & 0xffn)
  return bytes
}

describe('residueBitStream', () => {
  // Moduli of 27, 32 and 33 bits (the last in 34, a width may exceed the modulus) and one of 61
  // bits (a residue split into a low 32-bit and a high part).
  const run: ResidueRun = {
    polys: 2,
    polyModulusDegree: 8,
    primes: [134215681n, 4294475777n, 8589852673n, 2305843009213554689n],
    widths: [27, 32, 34, 61],
  }

  it('writes exactly the bits by definition, at any byte offset, and touches no byte outside its run', () => {
    const next = lcg(5)
    const residues: bigint[] = []
    for (let p = 0; p < run.polys; p++) {
      for (const prime of run.primes) {
        for (let j = 0; j < run.polyModulusDegree; j++) {
          // Edges first: 0 and p − 1, then random words below the prime.
          const random = ((BigInt(next()) << 32n) | BigInt(next())) % prime
          residues.push(j === 0 ? prime - 1n : j === 1 ? 0n : random)
        }
      }
    }
    const source = new DataView(new ArrayBuffer(residues.length * 8 + 3))
    for (const [k, value] of residues.entries()) source.setBigUint64(3 + k * 8, value, true)
    const expected = streamOracle(run, residues)
    for (const at of [0, 1, 5]) {
      // Bytes around the run hold 0xa5: the writer must leave them as they are.
      const out = new Uint8Array(at + expected.length + 4).fill(0xa5)
      const end = writeResidueRun(run, source, 3, out, at)
      expect(end).toBe(at + expected.length)
      expect(out.subarray(at, end)).toEqual(expected)
      expect([...out.subarray(0, at), ...out.subarray(end)].every((b) => b === 0xa5)).toBe(true)
      const back = new DataView(new ArrayBuffer(residues.length * 8))
      expect(readResidueRun(run, out, at, back, 0, 'the run')).toBe(end)
      expect(residues.map((_, k) => back.getBigUint64(k * 8, true))).toEqual(residues)
    }
  })

  it('refuses a residue at or above its prime (INVALID_INPUT)', () => {
    const source = new DataView(new ArrayBuffer(run.polys * 4 * 8 * 8))
    source.setBigUint64(8 * 8, run.primes[1] as bigint, true)
    const out = new Uint8Array(residueRunBytes(run))
    expect(() => writeResidueRun(run, source, 0, out, 0)).toThrow(HeError)
  })
})
