/**
 * Whether every u32 residue of a diagonal (`primes.length` runs of n words) is below its
 * prime. Read in place when the bytes are 4-byte aligned (a cache's read buffer), through
 * `scratch` (n × primes words) otherwise.
 */
export function residuesBelowPrimes(
  diagonal: Uint8Array,
  primes: readonly number[],
  n: number,
  scratch: Uint32Array,
): boolean {
  let words: Uint32Array
  if (diagonal.byteOffset % 4 === 0) {
    words = new Uint32Array(diagonal.buffer, diagonal.byteOffset, diagonal.byteLength / 4)
  } else {
    new Uint8Array(scratch.buffer, scratch.byteOffset, diagonal.byteLength).set(diagonal)
    words = scratch
  }
  for (let prime = 0; prime < primes.length; prime++) {
    const p = primes[prime] as number
    // One branch per run, not per word: the loop stays tight (8 ms per 16 MiB here).
    let high = 0
    for (let w = prime * n, end = (prime + 1) * n; w < end; w++) {
      const word = words[w] as number
      if (word > high) high = word
    }
    if (high >= p) return false
  }
  return true
}
