import { modInverse } from './powMod.ts'
import type { RnsKernelShape } from './RnsKernelShape.ts'
import { nttTables, shoup } from './rnsTables.ts'

/** Below 2^30, 4p fits a u32 word: the NTTs may leave values up to 4p between stages (keySwitch.wat). */
const LAZY_PRIME_LIMIT = 1n << 30n

/** One key-level prime's constants, as keySwitch.wat takes them (u32 words and Shoup companions). */
export interface PrimeConstants {
  p: number
  /** ⌊2^32/p⌋: Shoup's companion of 1. */
  one: number
  /** 2^32 mod p and its companion (reducing u64 sums). */
  c: number
  cq: number
  nInv: number
  nInvQ: number
  /** p < 2^30: the transforms run Harvey's lazy butterflies (`nttLazy`, `inttLazy`). */
  lazy: boolean
  /** Data primes only: the special prime P mod p, P⁻¹ mod p, with companions. */
  specialMod: number
  specialModQ: number
  specialInv: number
  specialInvQ: number
}

/** A prime's constants with the byte offsets of its NTT tables in the kernel's heap. */
export type PlacedPrime = PrimeConstants & { forwardAt: number; inverseAt: number }

/** What the kernel precomputes of its shape, before any of it is placed in its heap. */
export interface RnsKernelTables {
  /** Per key-level prime (data primes, then the special prime): constants and NTT tables. */
  primes: Array<PrimeConstants & { forward: Uint32Array; inverse: Uint32Array }>
  /** BGV's mod-down by the special prime P: t and k = −P⁻¹ mod t, with its companion. */
  modDown: { t: number; k: number; kq: number }
  /** The same for dropping the last data prime (a BGV mod switch), with its constants per lower prime. */
  modSwitch: { k: number; kq: number; mod: number[]; modQ: number[]; inv: number[]; invQ: number[] }
}

/** The constants and NTT tables of the kernel's primes, in BigInt once, as u32 words. */
export function rnsKernelTables(shape: RnsKernelShape): RnsKernelTables {
  const n = shape.polyModulusDegree
  const L = shape.keyPrimes.length - 1
  const special = shape.keyPrimes[L] as bigint
  const primes = shape.keyPrimes.map((p, i) => {
    const { forward, inverse } = nttTables(n, p)
    const c = (1n << 32n) % p
    const nInv = modInverse(BigInt(n), p)
    const data = i < L
    const specialMod = data ? special % p : 0n
    const specialInv = data ? modInverse(special, p) : 0n
    return {
      p: Number(p),
      one: shoup(1n, p),
      c: Number(c),
      cq: shoup(c, p),
      nInv: Number(nInv),
      nInvQ: shoup(nInv, p),
      forward,
      inverse,
      lazy: p < LAZY_PRIME_LIMIT,
      specialMod: Number(specialMod),
      specialModQ: shoup(specialMod, p),
      specialInv: Number(specialInv),
      specialInvQ: shoup(specialInv, p),
    }
  })
  const t = shape.plainModulus
  // k = −tl·P⁻¹ mod t = (tl mod t)·(t − P⁻¹ mod t) mod t.
  const k = (t - modInverse(special, t)) % t
  const last = shape.keyPrimes[L - 1] as bigint
  const lower = shape.keyPrimes.slice(0, L - 1)
  const kSwitch = (t - modInverse(last, t)) % t
  return {
    primes,
    modDown: { t: Number(t), k: Number(k), kq: shoup(k, t) },
    modSwitch: {
      k: Number(kSwitch),
      kq: shoup(kSwitch, t),
      mod: lower.map((q) => Number(last % q)),
      modQ: lower.map((q) => shoup(last % q, q)),
      inv: lower.map((q) => Number(modInverse(last, q))),
      invQ: lower.map((q) => shoup(modInverse(last, q), q)),
    },
  }
}
