import { narrowResidues, type RnsKernel, sealDataWords } from '@sealbox/he-ring'
import { BenchError } from '../../BenchError.ts'

/**
 * The kernel's u32 words of an uncompressed SEAL save of a ciphertext or plaintext at the
 * first level (`words` of them), read as the search reads them (he-ring's `sealDataWords`
 * and `narrowResidues`); a word at or above its prime is refused.
 */
export function sealResidueWords(kernel: RnsKernel, saved: Uint8Array, words: number): Uint32Array {
  const out = new Uint32Array(words)
  const primes = kernel.shape.keyPrimes.slice(0, kernel.L)
  if (narrowResidues(sealDataWords(saved, words), out, primes, kernel.n) > 0) {
    throw new BenchError('INTERNAL', 'a SEAL save holds residues the kernel cannot read')
  }
  return out
}
