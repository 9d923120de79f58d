import type { RnsKernelExports } from './rnsKernelModule.ts'
import type { PlacedPrime } from './rnsKernelTables.ts'

/**
 * What `RnsKernel`'s parts (`BgvModDown`, `DiagonalInnerProduct`) use of it: the module's
 * exports, the key-level primes, the transforms and reductions, and views of its heap.
 */
export interface RnsKernelCore {
  readonly n: number
  /** Data primes (the special prime is index L). */
  readonly L: number
  readonly exports: RnsKernelExports
  readonly primes: readonly PlacedPrime[]
  ntt(at: number, prime: number): void
  intt(at: number, prime: number): void
  /** dst (u32) = acc (u64) mod key-level prime `prime`, `len` words. */
  reduce(dst: number, acc: number, len: number, prime: number): void
  words(at: number, count: number): Uint32Array
}
