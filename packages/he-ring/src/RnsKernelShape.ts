import type { DiagonalMemory } from './DiagonalMemory.ts'

/** What the kernel works on: SEAL's key level (data primes, then the one special prime). */
export interface RnsKernelShape {
  polyModulusDegree: number
  /** The primes of the first data level, then the special prime (SEAL's key modulus). */
  keyPrimes: readonly bigint[]
  plainModulus: bigint
  /** The Galois elements it rotates by (their permutations are built once). */
  galoisElements: readonly number[]
}

/** Options of `RnsKernel`. */
export interface RnsKernelOptions {
  /**
   * Where `innerProduct` reads its plaintexts: a memory shared with other threads' kernels
   * (one copy of a database's diagonals per node). Default: a memory of this kernel's own.
   */
  diagonals?: DiagonalMemory
}
