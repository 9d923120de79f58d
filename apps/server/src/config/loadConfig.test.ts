import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { CONFIG_KEYS, loadConfig, parseFlags, serverHelp } from './loadConfig.ts'

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

  it('reads SEARCH_CLUSTERS / --search-clusters: 0 (exact, the default), a count or auto', () => {
    expect(loadConfig({}).SEARCH_CLUSTERS).toBe(0)
    expect(loadConfig({ env: { SEARCH_CLUSTERS: '32' } }).SEARCH_CLUSTERS).toBe(32)
    expect(loadConfig({ argv: ['--search-clusters', 'auto'] }).SEARCH_CLUSTERS).toBe('auto')
    expect(configError({ env: { SEARCH_CLUSTERS: 'many' } })).toMatch(/SEARCH_CLUSTERS \/ --search-clusters/)
    expect(configError({ env: { SEARCH_CLUSTERS: '-2' } })).toMatch(/SEARCH_CLUSTERS/)
  })

  it('keeps the worker heap settings consistent: the recycle threshold and the key cache below the cap', () => {
    const MiB = 2 ** 20
    expect(configError({ env: { WORKER_HEAP_BYTES: String(512 * MiB) } })).toMatch(
      /WORKER_HEAP_RECYCLE_BYTES.*not below WORKER_HEAP_BYTES \(536870912\)/,
    )
    expect(
      configError({
        env: {
          WORKER_HEAP_BYTES: String(512 * MiB),
          WORKER_HEAP_RECYCLE_BYTES: String(256 * MiB),
          KEY_CACHE_BYTES: String(512 * MiB),
        },
      }),
    ).toMatch(/KEY_CACHE_BYTES.*not below WORKER_HEAP_BYTES.*before the cache evicts/)
    // A job estimated above the cap is the operator's choice (it may answer 507), not a contradiction.
    const config = loadConfig({
      env: {
        WORKER_HEAP_BYTES: String(384 * MiB),
        WORKER_HEAP_RECYCLE_BYTES: String(256 * MiB),
        MAX_JOB_HEAP_BYTES: String(2048 * MiB),
      },
    })
    expect(config.MAX_JOB_HEAP_BYTES).toBe(2048 * MiB)
  })

  it('production mode needs tokens, refuses fault injection, and validates token lists', () => {
    const acme = 'acme-7Rq2xV9kLm3pZ8wT4nB6yH1cF5dJ0gS'
    const beta = 'beta-Ke4Wm8Qz2Xr6Tn1Vb9Hy3Lp7Cd5Fg0J'
    expect(configError({ env: { MODE: 'production' } })).toMatch(/TOKENS.*at least one tenant:token/)
    expect(configError({ env: { MODE: 'production', TOKENS: `acme:${acme}`, FAULT_INJECTION: 'true' } })).toMatch(
      /FAULT_INJECTION.*refused in production/,
    )
    // A tenant may have several tokens (rotation); one token may not belong to two entries.
    expect(loadConfig({ env: { TOKENS: `a:${acme},a:${beta}` } }).TOKENS).toEqual([
      { tenant: 'a', token: acme },
      { tenant: 'a', token: beta },
    ])
    expect(configError({ env: { TOKENS: `a:${acme},b:${acme}` } })).toMatch(/the same token twice/)
    // Production mode is satisfied by a tokens file (read, and checked, when the server starts).
    expect(loadConfig({ env: { MODE: 'production', TOKENS_FILE: '/etc/sealbox/tokens' } }).TOKENS_FILE).toBe(
      '/etc/sealbox/tokens',
    )
    const config = loadConfig({ env: { MODE: 'production', TOKENS: `acme:${acme}, beta:${beta}` } })
    expect(config.TOKENS).toEqual([
      { tenant: 'acme', token: acme },
      { tenant: 'beta', token: beta },
    ])
  })

  it('refuses a token that could never authenticate or could be guessed, naming its tenant and the rule', () => {
    const refused: Array<[string, RegExp]> = [
      ['acme:0123456789abcdef', /token of tenant "acme" is 16 characters long; use at least 32/],
      ['acme:7Rq2xV9kLm3pZ8wT 4nB6yH1cF5dJ0gSe', /token of tenant "acme" has a character outside/],
      ['acme:7Rq2xV9kLm3pZ8wT\t4nB6yH1cF5dJ0gSe', /token of tenant "acme" has a character outside/],
      ['acme:7Rq2xV9kLm3pZ8wT:4nB6yH1cF5dJ0gSe', /token of tenant "acme" has a character outside/],
      [`acme:${'a'.repeat(40)}`, /token of tenant "acme" uses only 1 distinct character \(at least 8\)/],
      [`acme:${'ab'.repeat(20)}`, /uses only 2 distinct characters/],
      ['acme:7Rq2xV9kLm3pZ8wT00000000nB6yH1cF5d', /repeats one character 8 times in a row \(at most 7\)/],
      [`acme:${'0123456789abcdef'.repeat(2)}`, /token of tenant "acme" is a 16-character pattern repeated/],
    ]
    for (const [tokens, message] of refused) {
      const error = configError({ env: { TOKENS: tokens } })
      expect(error).toMatch(message)
      // Never the secret itself in a message that ends up in logs.
      expect(error).not.toContain(tokens.slice(5, 20))
    }
    // Random tokens as the docs make them pass (hex and base64 alphabets).
    const hex = '3f9a0c27d4e1b85f6a2c90e7d13b4f58a6c2e0971d3b5f48'
    const base64 = 'q8Zk+J2v/Xw9LmT4pR7sN1bY6cH3fG0d=_~.-'
    expect(loadConfig({ env: { TOKENS: `acme:${hex},beta:${base64}` } }).TOKENS.length).toBe(2)
  })

  it('takes lower-case tenant names only, and none that could pass for an anonymous tenant', () => {
    const token = '3f9a0c27d4e1b85f6a2c90e7d13b4f58a6c2e0971d3b5f48'
    expect(configError({ env: { TOKENS: `Alice:${token}` } })).toMatch(
      /tenant "Alice" is not a valid tenant name \(use "alice"\): use 1–64 lower-case letters, digits and -/,
    )
    expect(configError({ env: { TOKENS: `../etc:${token}` } })).toMatch(/tenant "\.\.\/etc" is not a valid tenant name/)
    expect(configError({ env: { TOKENS: `team_a:${token}` } })).toMatch(/tenant "team_a" is not a valid/)
    expect(configError({ env: { TOKENS: `anon-0123:${token}` } })).toMatch(/not starting with "anon-"/)
    expect(configError({ env: { TOKENS: `:${token}` } })).toMatch(/"tenant:token" pairs/)
    expect(loadConfig({ env: { TOKENS: `team-a1:${token}` } }).TOKENS).toEqual([{ tenant: 'team-a1', token }])
  })

  it('reads the PostgreSQL key-store limits, with defaults', () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      KEY_STORE_STATEMENT_TIMEOUT_MS: 15_000,
      KEY_STORE_LOCK_TIMEOUT_MS: 3_000,
      KEY_STORE_ACQUIRE_TIMEOUT_MS: 5_000,
    })
    const config = loadConfig({
      argv: ['--key-store-statement-timeout-ms', '2000', '--key-store-lock-timeout-ms=0'],
      env: { KEY_STORE_ACQUIRE_TIMEOUT_MS: '750' },
    })
    expect(config).toMatchObject({
      KEY_STORE_STATEMENT_TIMEOUT_MS: 2000,
      KEY_STORE_LOCK_TIMEOUT_MS: 0,
      KEY_STORE_ACQUIRE_TIMEOUT_MS: 750,
    })
    expect(configError({ env: { KEY_STORE_ACQUIRE_TIMEOUT_MS: '0' } })).toMatch(/KEY_STORE_ACQUIRE_TIMEOUT_MS/)
  })

  it('reads SEARCH_SHARD i/S from env or --search-shard, and refuses a shard outside 0 … S−1', () => {
    expect(loadConfig({ env: { SEARCH_SHARD: '1/2' } }).SEARCH_SHARD).toBe('1/2')
    expect(loadConfig({ env: {}, argv: ['--search-shard', '0/4'] }).SEARCH_SHARD).toBe('0/4')
    expect(loadConfig({ env: {} }).SEARCH_SHARD).toBeUndefined()
    expect(configError({ env: { SEARCH_SHARD: '2/2' } })).toMatch(/SEARCH_SHARD \/ --search-shard: .*0 ≤ i < S/)
    expect(configError({ env: { SEARCH_SHARD: '0/0' } })).toMatch(/SEARCH_SHARD/)
    expect(configError({ env: { SEARCH_SHARD: 'half' } })).toMatch(/SEARCH_SHARD \/ --search-shard: expected i\/S/)
    // One message for text that is not i/S, not the range's too.
    expect(configError({ env: { SEARCH_SHARD: 'a/b' } })).not.toContain('0 ≤ i < S')
  })

  it('parses bare boolean flags before another flag, and switches written --flag=value', () => {
    expect(parseFlags(['--fault-injection', '--port', '1'])).toEqual({
      help: false,
      values: { FAULT_INJECTION: 'true', PORT: '1' },
    })
    expect(loadConfig({ argv: ['--allow-executor-override=false'] }).ALLOW_EXECUTOR_OVERRIDE).toBe(false)
    expect(parseFlags(['--help']).help).toBe(true)
    expect(parseFlags(['-h']).help).toBe(true)
  })

  it('refuses a bad number naming the flag, and a flag given without its value', () => {
    expect(configError({ argv: ['--key-cache-bytes', 'lots'] })).toMatch(
      /KEY_CACHE_BYTES \/ --key-cache-bytes: .*got "lots"/,
    )
    expect(configError({ argv: ['--request-timeout-ms=1.5'] })).toMatch(/REQUEST_TIMEOUT_MS \/ --request-timeout-ms/)
    expect(configError({ argv: ['--port'] })).toMatch(/--port needs a value/)
    expect(configError({ argv: ['--help=yes'] })).toMatch(/--help takes no value/)
    expect(configError({ argv: ['--port', '--workers', '2'] })).toMatch(/--port/)
  })

  it('--help lists every setting with its flag, environment variable, default and description', () => {
    const help = serverHelp()
    for (const key of CONFIG_KEYS) {
      const flag = `--${key.toLowerCase().replaceAll('_', '-')}`
      const entry = new RegExp(`^  ${flag}( <value>)?\\n      env ${key}; default \\S.*\\n      \\S`, 'm')
      expect(help, key).toMatch(entry)
    }
    expect(help).toMatch(/--port <value>\n {6}env PORT; default 8080\n/)
    expect(help).toMatch(/--fault-injection\n {6}env FAULT_INJECTION; default false\n/)
    expect(help).toMatch(/--search-baby-step <value>\n {6}env SEARCH_BABY_STEP; default \(unset\)/)
  })
})
