/**
 * SEAL's u64 residue words (little-endian bytes, `out.length` words: polynomial, then prime,
 * then coefficient) → the u32 words the key-switching kernel holds. Word w belongs to prime
 * `primes[⌊w / n⌋ mod primes.length]`. Returns how many words are at or above their prime
 * (2^32 or more included, and words past the end of `words`): 0 for anything SEAL wrote;
 * `out` holds the low halves either way.
 */
export function narrowResidues(words: Uint8Array, out: Uint32Array, primes: readonly bigint[], n: number): number {
  const whole = words.byteLength >= out.length * 8
  // Read in place when 4-byte aligned (a million rows narrow 125,000 diagonals at processing).
  const pairs =
    whole && words.byteOffset % 4 === 0
      ? new Uint32Array(words.buffer, words.byteOffset, out.length * 2)
      : new Uint32Array(words.slice(0, out.length * 8).buffer)
  const limits = primes.map(Number)
  const reached = Math.min(out.length, Math.floor(pairs.length / 2))
  let unreduced = 0
  // One prime per run of n words: no division per word.
  for (let start = 0, run = 0; start < out.length; start += n, run++) {
    const p = limits[run % limits.length] as number
    const end = Math.min(start + n, reached)
    for (let w = start; w < end; w++) {
      const lo = pairs[2 * w] as number
      if (pairs[2 * w + 1] !== 0 || lo >= p) unreduced++
      out[w] = lo
    }
  }
  // Words `words` does not reach are not residues SEAL wrote.
  if (reached < out.length) {
    out.fill(0, reached)
    unreduced += out.length - reached
  }
  return unreduced
}
