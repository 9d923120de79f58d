import { HeError } from '@sealbox/he-core'
import { LRUCache } from 'lru-cache'

/** Options of a per-key token bucket. */
export interface TokenBucketOptions {
  /** Tokens added per second (the sustained rate). */
  ratePerSecond: number
  /** Bucket size: how many requests may come at once after a quiet spell. */
  burst: number
  /** Keys tracked at most; the least recently seen are forgotten first (bounded memory under address floods). */
  maxKeys?: number
  /** What is limited, for the error message ("sessions", "executor overrides"). */
  what: string
}

interface Bucket {
  tokens: number
  at: number
}

/**
 * A token bucket per key (a client address, a tenant): `take(key)` spends one token
 * or throws `RATE_LIMITED` with the seconds until one is back. Memory is bounded by
 * `maxKeys` (an LRU cache); a forgotten key starts with a full bucket, which is no worse
 * than a client with a fresh address.
 */
export class TokenBucketLimiter {
  readonly #options: Required<TokenBucketOptions>
  readonly #buckets: LRUCache<string, Bucket>
  readonly #now: () => number

  constructor(options: TokenBucketOptions, now: () => number = () => performance.now()) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new HeError('INVALID_INPUT', `${options.what}: rate must be > 0 and burst ≥ 1`)
    }
    this.#options = { maxKeys: 10_000, ...options }
    this.#buckets = new LRUCache({ max: this.#options.maxKeys })
    this.#now = now
  }

  /**
   * Spends `amount` tokens (default one) of `key`'s bucket; throws RATE_LIMITED (with
   * retryAfterSeconds) when fewer are left. A cost budget spends a job's cost units.
   */
  take(key: string, amount = 1): void {
    const { ratePerSecond, burst, what } = this.#options
    const bucket = this.#refill(key)
    if (bucket.tokens < amount) {
      const retryAfterSeconds = Math.ceil((amount - bucket.tokens) / ratePerSecond)
      throw new HeError(
        'RATE_LIMITED',
        `too many ${what}: at most ${burst} at once and ${formatRate(ratePerSecond)} after that; retry in ${retryAfterSeconds} s`,
        { details: { retryAfterSeconds, burst, ratePerSecond } },
      )
    }
    bucket.tokens -= amount
  }

  /**
   * Spends `amount` tokens of `key`'s bucket even when fewer are left (the bucket goes
   * into debt, refused until it refills): for work measured after it was done. A
   * negative amount gives tokens back (up to the burst).
   */
  charge(key: string, amount: number): void {
    const bucket = this.#refill(key)
    bucket.tokens = Math.min(this.#options.burst, bucket.tokens - amount)
  }

  /** Whether `key`'s bucket holds at least `amount` tokens now (nothing spent). */
  has(key: string, amount: number): boolean {
    return this.#refill(key).tokens >= amount
  }

  #refill(key: string): Bucket {
    const now = this.#now()
    const { ratePerSecond, burst } = this.#options
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: now }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond)
    bucket.at = now
    // Every look counts as a use, refused takes too: the least recently seen key goes first.
    this.#buckets.set(key, bucket)
    return bucket
  }

  /** Keys tracked now (for tests and metrics). */
  get size(): number {
    return this.#buckets.size
  }
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond} per second` : `${Math.round(perSecond * 60 * 100) / 100} per minute`
}
