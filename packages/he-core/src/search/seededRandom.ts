/** A small deterministic PRNG (mulberry32): the same seed gives the same numbers in Node and browsers. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / 2 ** 32
  }
}

/** Standard normal samples (Box–Muller) from a uniform source. */
export function gaussian(uniform: () => number): () => number {
  return () => {
    const u = 1 - uniform()
    const v = uniform()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }
}
