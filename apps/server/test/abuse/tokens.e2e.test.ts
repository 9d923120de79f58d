import { ServerNode } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'

/*
 * Unusable tokens: a configured token that could never authenticate (a space) or could
 * be guessed (short, one repeated character), and tenant names that differ only by case,
 * used to be accepted at start-up. Now `node src/main.ts` refuses them before it listens,
 * exits non-zero, and says which tenant's entry is wrong and what the rule is.
 */

const GOOD = '3f9a0c27d4e1b85f6a2c90e7d13b4f58a6c2e0971d3b5f48'

/**
 * Runs the server with `TOKENS` in production mode; resolves with its exit code and
 * stderr. A server that got past the configuration would listen until ServerNode.run's
 * timeout kills it: that is a failure of this test.
 */
function startWith(tokens: string): Promise<{ code: number | null; stderr: string }> {
  return ServerNode.run([], { MODE: 'production', TOKENS: tokens, WORKERS: '1' }, 30_000)
}

describe('tokens and tenant names are checked at start-up', () => {
  const cases: Array<{ name: string; tokens: string; message: RegExp }> = [
    {
      name: 'a token with a space (it could never be sent as a bearer token)',
      tokens: `alice:${GOOD.slice(0, 20)} ${GOOD.slice(20)}`,
      message: /TOKENS \/ --tokens: the token of tenant "alice" has a character outside/,
    },
    {
      name: 'a short token of one repeated character',
      tokens: `alice:${GOOD},bob:aaaaaaaaaaaaaaaa`,
      message: /TOKENS \/ --tokens: the token of tenant "bob" is 16 characters long; use at least 32/,
    },
    {
      name: 'a long token of one repeated character',
      tokens: `bob:${'a'.repeat(40)}`,
      message: /the token of tenant "bob" uses only 1 distinct character \(at least 8\)/,
    },
    {
      name: 'tenant names that differ only by case',
      tokens: `Alice:${GOOD},alice:${GOOD.split('').reverse().join('')}`,
      message: /tenant "Alice" is not a valid tenant name \(use "alice"\)/,
    },
  ]

  it.each(cases)('refuses $name: exit 1 and a message naming the tenant', async ({ tokens, message }) => {
    const { code, stderr } = await startWith(tokens)
    expect(code).toBe(1)
    expect(stderr).toMatch(message)
    expect(stderr).not.toMatch(/listening on/)
    // The message never echoes the secret.
    expect(stderr).not.toContain(GOOD)
  })
})
