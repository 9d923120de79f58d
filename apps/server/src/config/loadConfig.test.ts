import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { loadConfig, parseFlags } from './loadConfig.ts'

function configError(options: Parameters<typeof loadConfig>[0]): string {
  try {
    loadConfig(options)
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    expect((error as HeError).code).toBe('INVALID_INPUT')
    return (error as HeError).message
  }
  throw new Error('expected a configuration error')
}

describe('loadConfig', () => {
  it('has working defaults: local mode, pool executor, port 8080, the synthetic demo database', () => {
    const config = loadConfig({ env: {} })
    expect(config).toMatchObject({
      PORT: 8080,
      MODE: 'local',
      EXECUTOR: 'pool',
      DATABASE: 'synthetic',
      SYNTHETIC_ROWS: 10_000,
      SYNTHETIC_DIM: 16,
      MAX_POLY_DEGREE: 16384,
    })
    expect(config.WORKERS).toBeGreaterThanOrEqual(1)
  })

  it('reads env, then flags (flags win), in both flag spellings', () => {
    const config = loadConfig({
      env: { PORT: '9000', EXECUTOR: 'inline', WORKERS: '3', UNRELATED: 'x' },
      argv: ['--port', '9001', '--executor=process', '--allow-executor-override'],
    })
    expect(config).toMatchObject({ PORT: 9001, EXECUTOR: 'process', WORKERS: 3, ALLOW_EXECUTOR_OVERRIDE: true })
  })

  it('stops on a bad value with a message naming the setting and its flag', () => {
    expect(configError({ env: { PORT: 'eighty' } })).toMatch(/PORT \/ --port: .*got "eighty"/)
    expect(configError({ env: { EXECUTOR: 'gpu' } })).toMatch(/EXECUTOR \/ --executor/)
    expect(configError({ argv: ['--workers', '0'] })).toMatch(/WORKERS \/ --workers/)
    expect(configError({ env: { MAX_POLY_DEGREE: '5000' } })).toMatch(
      /MAX_POLY_DEGREE.*one of 4096, 8192, 16384, 32768/,
    )
    expect(configError({ argv: ['--no-such-flag'] })).toMatch(/unknown flag --no-such-flag/)
    expect(configError({ argv: ['stray'] })).toMatch(/unexpected argument "stray"/)
  })

  it('production mode needs tokens, refuses fault injection, and validates token lists', () => {
    expect(configError({ env: { MODE: 'production' } })).toMatch(/TOKENS.*at least one tenant:token/)
    expect(
      configError({ env: { MODE: 'production', TOKENS: 'acme:0123456789abcdef0123', FAULT_INJECTION: 'true' } }),
    ).toMatch(/FAULT_INJECTION.*refused in production/)
    expect(configError({ env: { TOKENS: 'acme:short' } })).toMatch(/shorter than 16/)
    expect(configError({ env: { TOKENS: '../etc:0123456789abcdef0123' } })).toMatch(/tenant:token/)
    expect(configError({ env: { TOKENS: 'a:0123456789abcdef0123,a:fedcba9876543210fedc' } })).toMatch(
      /tenant "a" twice/,
    )
    const config = loadConfig({
      env: { MODE: 'production', TOKENS: 'acme:0123456789abcdef0123, beta:fedcba9876543210fedc' },
    })
    expect(config.TOKENS).toEqual([
      { tenant: 'acme', token: '0123456789abcdef0123' },
      { tenant: 'beta', token: 'fedcba9876543210fedc' },
    ])
  })

  it('parses bare boolean flags before another flag', () => {
    expect(parseFlags(['--fault-injection', '--port', '1'])).toEqual({ FAULT_INJECTION: 'true', PORT: '1' })
  })
})
