/*
 * The constants the key-switching kernel (keySwitch.wat) needs for one prime, computed
 * in BigInt once per index: SEAL's NTT root powers, Shoup's companions w' = ⌊w·2^32/p⌋,
 * and the Galois permutations of NTT-form slots. Everything here follows SEAL 4.1
 * (util/ntt.cpp, util/numth.cpp, util/galois.cpp), so the kernel's NTT form is SEAL's.
 */

import { modInverse, powMod } from './powMod.ts'
import { RingError } from './RingError.ts'

/** Shoup's w' = ⌊w·2^32 / p⌋ for w < p. */
export function shoup(w: bigint, p: bigint): number {
  return Number((w << 32n) / p)
}

/** `value`'s lowest `bits` bits in reverse order (SEAL's bit-reversed NTT slot order). */
export function reverseBits(value: number, bits: number): number {
  let result = 0
  for (let i = 0; i < bits; i++) result |= ((value >>> i) & 1) << (bits - 1 - i)
  return result >>> 0
}

/**
 * SEAL's root for the negacyclic NTT of degree n mod p: the smallest primitive 2n-th
 * root of unity (try_minimal_primitive_root), so the NTT form matches SEAL's.
 */
export function minimalPrimitiveRoot(n: number, p: bigint): bigint {
  const order = BigInt(2 * n)
  if ((p - 1n) % order !== 0n)
    throw new RingError('INVALID_PARAMS', `${p} is not 1 mod ${order}: no negacyclic NTT of degree ${n}`)
  let root = 0n
  // For a prime p half of all x give a primitive root: a few tries suffice (p not prime: refused).
  for (let x = 2n; x < 10_000n && x < p; x++) {
    const candidate = powMod(x, (p - 1n) / order, p)
    // A 2n-th root (n a power of two) is primitive exactly when its n-th power is −1.
    if (powMod(candidate, BigInt(n), p) === p - 1n) {
      root = candidate
      break
    }
  }
  if (root === 0n)
    throw new RingError('INVALID_PARAMS', `no primitive ${order}-th root of unity mod ${p} (is it prime?)`)
  const square = (root * root) % p
  let smallest = root
  let current = root
  for (let i = 0; i < n; i++) {
    if (current < smallest) smallest = current
    current = (current * square) % p
  }
  return smallest
}

/**
 * The kernel's tables for one prime (u32 words): forward root powers w[k] (k < n, SEAL's
 * bit-reversed order) then their w', and the inverses then their w'.
 */
export function nttTables(n: number, p: bigint): { forward: Uint32Array; inverse: Uint32Array } {
  const root = minimalPrimitiveRoot(n, p)
  const bits = Math.log2(n)
  const forward = new Uint32Array(2 * n)
  const inverse = new Uint32Array(2 * n)
  let power = 1n
  for (let i = 0; i < n; i++) {
    const k = reverseBits(i, bits)
    const inv = modInverse(power, p)
    forward[k] = Number(power)
    forward[n + k] = shoup(power, p)
    inverse[k] = Number(inv)
    inverse[n + k] = shoup(inv, p)
    power = (power * root) % p
  }
  return { forward, inverse }
}

/**
 * SEAL's permutation of NTT-form slots for Galois element `element`
 * (GaloisTool::generate_table_ntt): result[i] = operand[table[i]].
 */
export function galoisPermutation(n: number, element: number): Uint32Array {
  const bits = Math.log2(n)
  const table = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const reversed = reverseBits(n + i, bits + 1)
    const raw = Number((BigInt(element) * BigInt(reversed)) >> 1n) & (n - 1)
    table[i] = reverseBits(raw, bits)
  }
  return table
}
