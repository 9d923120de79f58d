/**
 * A user's Galois keys as the kernel reads them: per element, u32 residues in SEAL's
 * order — decomposition component j < L, then polynomial K < 2, then key-level prime
 * i < L + 1, then coefficient — all in NTT form.
 */
export interface GaloisKeyWords {
  readonly elements: ReadonlyMap<number, Uint32Array>
  readonly bytes: number
}
