/**
 * A seeded Zipf sampler over ranks 0…n−1: P(rank k) ∝ 1 / (k + 1)^s. Rank 0 is the
 * busiest user. Inverse-CDF lookup (binary search) on a precomputed table; the PRNG is
 * mulberry32, so a seed gives the same request sequence in every run.
 */
export class ZipfSampler {
  readonly n: number
  readonly s: number
  readonly #cdf: Float64Array
  #state: number

  constructor(n: number, s: number, seed: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Zipf needs n ≥ 1, got ${n}`)
    if (!(s >= 0)) throw new RangeError(`Zipf needs s ≥ 0, got ${s}`)
    this.n = n
    this.s = s
    this.#cdf = new Float64Array(n)
    let sum = 0
    for (let k = 0; k < n; k++) {
      sum += 1 / (k + 1) ** s
      this.#cdf[k] = sum
    }
    for (let k = 0; k < n; k++) this.#cdf[k] = (this.#cdf[k] as number) / sum
    this.#state = seed >>> 0
  }

  /** The probability of rank `k`. */
  probability(k: number): number {
    return (this.#cdf[k] as number) - (k === 0 ? 0 : (this.#cdf[k - 1] as number))
  }

  /** A uniform number in [0, 1) (mulberry32). */
  random(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let t = this.#state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** The next rank. */
  next(): number {
    const u = this.random()
    let lo = 0
    let hi = this.n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.#cdf[mid] as number) < u) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
