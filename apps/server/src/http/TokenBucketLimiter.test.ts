import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { TokenBucketLimiter } from './TokenBucketLimiter.ts'

describe('TokenBucketLimiter', () => {
  it('lets a burst through, then refuses with the time until the next token', () => {
    let now = 0
    const limiter = new TokenBucketLimiter({ ratePerSecond: 0.5, burst: 3, what: 'sessions' }, () => now)
    for (let i = 0; i < 3; i++) limiter.take('a')
    let refused: unknown
    try {
      limiter.take('a')
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(HeError)
    expect((refused as HeError).code).toBe('RATE_LIMITED')
    expect((refused as HeError).details?.retryAfterSeconds).toBe(2)
    // Another key has its own bucket.
    limiter.take('b')
    now += 2000
    limiter.take('a')
    expect(() => limiter.take('a')).toThrow(/too many sessions/)
  })

  it('forgets the least recently seen keys beyond maxKeys', () => {
    const limiter = new TokenBucketLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 100, what: 'requests' }, () => 0)
    for (let i = 0; i < 1000; i++) limiter.take(`client-${i}`)
    expect(limiter.size).toBe(100)
  })

  it('counts a refused take as a use: the key seen least recently is the one forgotten', () => {
    const limiter = new TokenBucketLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 3, what: 'requests' }, () => 0)
    for (const key of ['a', 'b', 'c']) limiter.take(key)
    expect(() => limiter.take('a')).toThrow(/too many requests/)
    limiter.take('d') // evicts b, not a
    expect(() => limiter.take('a')).toThrow(/too many requests/)
    expect(() => limiter.take('b')).not.toThrow() // forgotten: a full bucket again
  })
})
