import { describe, expect, it } from 'vitest'
import { RateLimitedStoreLog } from './RateLimitedStoreLog.ts'

describe('RateLimitedStoreLog', () => {
  it('writes the first line of a kind at once, folds repeats into the next one per interval, never a stack', () => {
    const written: Array<{ level: string; details: object; message: string }> = []
    const sink = {
      error: (details: object, message: string) => written.push({ level: 'error', details, message }),
      warn: (details: object, message: string) => written.push({ level: 'warn', details, message }),
    }
    let now = 0
    const log = new RateLimitedStoreLog(sink, { intervalMs: 10_000, now: () => now })
    const failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    for (let i = 0; i < 500; i++) log.error({ err: failure, action: 'read' }, 'key store (PostgreSQL): unreachable')
    log.warn({ reason: 'lock-timeout' }, 'key store (PostgreSQL): lock')
    now = 10_000
    log.error({ err: failure, action: 'read' }, 'key store (PostgreSQL): unreachable')
    expect(written).toEqual([
      {
        level: 'error',
        details: { action: 'read', error: 'connect ECONNREFUSED 127.0.0.1:5432', errorCode: 'ECONNREFUSED' },
        message: 'key store (PostgreSQL): unreachable',
      },
      { level: 'warn', details: { reason: 'lock-timeout' }, message: 'key store (PostgreSQL): lock' },
      {
        level: 'error',
        details: {
          action: 'read',
          error: 'connect ECONNREFUSED 127.0.0.1:5432',
          errorCode: 'ECONNREFUSED',
          suppressed: 499,
        },
        message: 'key store (PostgreSQL): unreachable',
      },
    ])
  })
})
