// `@sealbox/he-ring`: the bottom layer of sealbox — ring arithmetic with no dependency on SEAL
// or on any other sealbox package. Primes and modular powers, SEAL-compatible NTT tables and
// Galois permutations, SEAL's word layouts, and two WebAssembly kernels: `DyadicAccumulator`
// (sums of NTT-form products) and `RnsKernel` (BGV key switching). he-core builds on it.

export { canShareWasmMemory, DiagonalMemory, type DiagonalMemoryState } from './DiagonalMemory.ts'
export { DyadicAccumulator, type DyadicShape } from './DyadicAccumulator.ts'
export type { GaloisKeyWords } from './GaloisKeyWords.ts'
export { isPrime } from './isPrime.ts'
export { narrowResidues } from './narrowResidues.ts'
export { galoisKeyWordsBytes, type KeyWordsShape, parseGaloisKeyWords } from './parseGaloisKeyWords.ts'
export { modInverse, powMod } from './powMod.ts'
export { productHeadroom } from './productHeadroom.ts'
export { RingError, type RingErrorCode } from './RingError.ts'
export { RnsKernel } from './RnsKernel.ts'
export type { RnsKernelOptions, RnsKernelShape } from './RnsKernelShape.ts'
export { RNS_KERNEL_MAX_BITS, rnsKernelApplies } from './rnsKernelApplies.ts'
export { rnsKernelCompiles } from './rnsKernelModule.ts'
export { galoisPermutation, minimalPrimitiveRoot, nttTables, reverseBits, shoup } from './rnsTables.ts'
export { sealDataWords } from './sealDataWords.ts'
