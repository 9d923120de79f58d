import { describe, expect, it } from 'vitest'
import { modInverse, powMod } from './powMod.ts'

describe('powMod and modInverse', () => {
  it('agree with repeated multiplication, for negative bases and modulus 1 too', () => {
    for (const p of [2n, 97n, 65537n]) {
      for (let base = -5n; base < 12n; base++) {
        let expected = 1n % p
        for (let e = 0n; e < 40n; e++) {
          expect(powMod(base, e, p), `${base}^${e} mod ${p}`).toBe(expected)
          expected = (((expected * base) % p) + p) % p
        }
      }
    }
    expect(powMod(7n, 0n, 1n)).toBe(0n)
  })

  it('inverts modulo a prime, near 2^31 and 2^60', () => {
    for (const p of [2147483137n, (1n << 60n) - 93n]) {
      for (const value of [1n, 2n, p - 1n, 123456789n]) expect((value * modInverse(value, p)) % p).toBe(1n)
    }
  })
})
