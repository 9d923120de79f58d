/**
 * A small seeded PRNG (xorshift128+) for benchmark inputs, so every engine encrypts the
 * same messages. Not for keys: SEAL samples its own randomness.
 */
export class Random {
  #s0: bigint
  #s1: bigint

  constructor(seed: number) {
    const mask = (1n << 64n) - 1n
    this.#s0 = (BigInt(seed >>> 0) * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n) & mask
    this.#s1 = (this.#s0 * 0xbf58476d1ce4e5b9n + 0x94d049bb133111ebn) & mask
    if (this.#s0 === 0n && this.#s1 === 0n) this.#s1 = 1n
  }

  /** The next 64 random bits. */
  nextU64(): bigint {
    const mask = (1n << 64n) - 1n
    let s1 = this.#s0
    const s0 = this.#s1
    this.#s0 = s0
    s1 = (s1 ^ (s1 << 23n)) & mask
    this.#s1 = s1 ^ s0 ^ (s1 >> 17n) ^ (s0 >> 26n)
    return (this.#s1 + s0) & mask
  }

  /** A float in [0, 1). */
  nextFloat(): number {
    return Number(this.nextU64() >> 11n) / 2 ** 53
  }

  /** An integer in [0, bound). */
  nextInt(bound: number): number {
    return Math.floor(this.nextFloat() * bound)
  }

  /** `count` integers uniform in [0, modulus). */
  uint64Below(count: number, modulus: bigint): BigUint64Array {
    const out = new BigUint64Array(count)
    for (let i = 0; i < count; i++) out[i] = this.nextU64() % modulus
    return out
  }

  /** `count` floats uniform in [0, 1), like sealbench's `randomize_message_double`. */
  floats(count: number): Float64Array {
    const out = new Float64Array(count)
    for (let i = 0; i < count; i++) out[i] = this.nextFloat()
    return out
  }
}
