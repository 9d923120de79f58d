import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { compileWat, wasmModuleSource } from '../scripts/compileWat.ts'
import { DyadicAccumulator } from './DyadicAccumulator.ts'
import { MUL_ACCUMULATE_WASM } from './mulAccumulateWasm.ts'
import { productHeadroom } from './productHeadroom.ts'
import { RingError } from './RingError.ts'

/** A small deterministic generator (tests must not depend on Math.random). */
function words(count: number, primes: readonly bigint[], n: number, seed: number): Uint8Array {
  const out = new BigUint64Array(count)
  let state = BigInt(seed) * 6364136223846793005n + 1442695040888963407n
  for (let i = 0; i < count; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n)
    const p = primes[Math.floor(i / n) % primes.length] as bigint
    // Mostly uniform, some at the top of the range (the worst case for overflow).
    out[i] = i % 7 === 0 ? p - 1n : (state >> 11n) % p
  }
  return new Uint8Array(out.buffer)
}

/** The same sum in BigInt arithmetic. */
function oracle(queries: Uint8Array[], plaintexts: Uint8Array[], terms: number[], primes: bigint[], n: number) {
  const polyWords = primes.length * n
  const out = new BigUint64Array(2 * polyWords)
  for (let i = 0; i < out.length; i++) {
    const p = primes[Math.floor(i / n) % primes.length] as bigint
    let sum = 0n
    for (const [a, index] of terms.entries()) {
      const x = new BigUint64Array((queries[a] as Uint8Array).buffer)[i] as bigint
      const y = new BigUint64Array((plaintexts[index] as Uint8Array).buffer)[i % polyWords] as bigint
      sum += x * y
    }
    out[i] = sum % p
  }
  return new Uint8Array(out.buffer)
}

function check(primes: bigint[], n: number, queryCount: number, terms: number[]): void {
  const polyWords = primes.length * n
  const plaintexts = Array.from({ length: 6 }, (_, i) => words(polyWords, primes, n, 100 + i))
  const queries = Array.from({ length: queryCount }, (_, i) => words(2 * polyWords, primes, n, i + 1))
  const accumulator = new DyadicAccumulator({ polyModulusDegree: n, primes, polys: 2 }, plaintexts, queryCount)
  accumulator.loadQuery(queries)
  expect(accumulator.sum(terms)).toEqual(oracle(queries, plaintexts, terms, primes, n))
}

describe('DyadicAccumulator', () => {
  it('sums products mod each prime exactly like BigInt arithmetic (the default search primes)', () => {
    // The data level of n=4096 [27, 28, 28]: headroom is far above 16 terms, one reduction.
    const primes = [134176769n, 268369921n]
    expect(productHeadroom(primes)).toBeGreaterThan(16)
    check(primes, 64, 16, [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3])
  })

  it('reduces between products when the primes leave no headroom (primes just below 2^32)', () => {
    const primes = [4294967291n, 4294967279n]
    expect(productHeadroom(primes)).toBe(1)
    check(primes, 32, 5, [5, 4, 3, 2, 1])
  })

  it('is reusable: a second query after a first gives the second sum', () => {
    const primes = [268369921n]
    check(primes, 16, 3, [2, 0, 1])
    check(primes, 16, 1, [3])
  })

  it('does not apply to primes of 2^32 or more, and refuses wrong sizes and indices', () => {
    expect(productHeadroom([1n << 32n])).toBe(0)
    expect(productHeadroom([1152921504606830593n])).toBe(0)
    expect(() => new DyadicAccumulator({ polyModulusDegree: 8, primes: [1n << 40n], polys: 2 }, [], 1)).toThrow(
      RingError,
    )
    const primes = [268369921n]
    const accumulator = new DyadicAccumulator({ polyModulusDegree: 8, primes, polys: 2 }, [words(8, primes, 8, 1)], 2)
    expect(() => accumulator.loadQuery([new Uint8Array(8)])).toThrow(/expected 128/)
    expect(() =>
      accumulator.loadQuery([words(16, primes, 8, 1), words(16, primes, 8, 2), words(16, primes, 8, 3)]),
    ).toThrow(/at most 2/)
    accumulator.loadQuery([words(16, primes, 8, 1)])
    expect(() => accumulator.sum([0, 0])).toThrow(/1 query ciphertexts loaded/)
    expect(() => accumulator.sum([1])).toThrow(/no plaintext 1/)
  })

  it('verify: counts the residues at or above their prime in the kernel (countUnreduced) and refuses the query', () => {
    const primes = [268369921n, 134176769n]
    const n = 8
    const accumulator = new DyadicAccumulator({ polyModulusDegree: n, primes, polys: 2 }, [words(16, primes, n, 1)], 1)
    const valid = words(32, primes, n, 2)
    accumulator.loadQuery([valid], { verify: true })
    // Three residues out of range, at the edges a word can take: the prime itself, prime + 1, 2^64 − 1.
    const forged = new BigUint64Array(valid.slice().buffer)
    forged[0] = primes[0] as bigint
    forged[n + 3] = (primes[1] as bigint) + 1n
    forged[3 * n - 1] = (1n << 64n) - 1n
    const error = (() => {
      try {
        accumulator.loadQuery([new Uint8Array(forged.buffer)], { verify: true })
      } catch (caught) {
        return caught
      }
      return undefined
    })()
    expect(RingError.is(error, 'INVALID_ENVELOPE')).toBe(true)
    expect((error as RingError).message).toContain('3 coefficients at or above their prime')
    // Nothing of the refused query stays loaded; without verify the same words are taken as they are.
    expect(() => accumulator.sum([0])).toThrow(/0 query ciphertexts loaded/)
    accumulator.loadQuery([new Uint8Array(forged.buffer)])
    expect(() => accumulator.sum([0])).not.toThrow()
  })

  it('carries the bytes the .wat source compiles to (pnpm --filter @sealbox/he-ring build:wasm)', async () => {
    const wat = fileURLToPath(new URL('./mulAccumulate.wat', import.meta.url))
    const bytes = await compileWat(readFileSync(wat, 'utf8'), 'mulAccumulate.wat')
    expect(wasmModuleSource('mulAccumulate.wat', bytes)).toContain(`'${MUL_ACCUMULATE_WASM}'`)
  })
})
