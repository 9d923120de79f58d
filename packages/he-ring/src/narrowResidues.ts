/**
 * SEAL's u64 residue words (little-endian bytes, `out.length` words: polynomial, then prime,
 * then coefficient) → the u32 words the key-switching kernel holds. Word w belongs to prime
 * `primes[⌊w / n⌋ mod primes.length]`. Returns how many words are at or above their prime
 * (2^32 or more included): 0 for anything SEAL wrote; `out` holds the low halves either way.
 */
export function narrowResidues(words: Uint8Array, out: Uint32Array, primes: readonly bigint[], n: number): number {
  const pairs = new Uint32Array(words.slice(0, out.length * 8).buffer)
  const limits = primes.map(Number)
  let unreduced = 0
  for (let w = 0; w < out.length; w++) {
    const lo = pairs[2 * w] as number
    if (pairs[2 * w + 1] !== 0 || lo >= (limits[Math.floor(w / n) % limits.length] as number)) unreduced++
    out[w] = lo
  }
  return unreduced
}
