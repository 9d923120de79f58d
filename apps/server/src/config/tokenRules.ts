/*
 * What a configured tenant name and token (TOKENS) must look like. A token is a secret
 * typed into environment files by people: refuse at start-up what could never
 * authenticate (a space, a comma) or could be guessed (short, few distinct characters,
 * long runs, a repeated pattern) rather than find out from a tenant's 401s.
 */

/**
 * Configured tenant names (TOKENS): lower case, digits and `-`, so two names never differ
 * only by case (they become directory names, and some file systems fold case).
 */
export const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/
/** Anonymous tenants are `anon-…`: a configured name may not take that prefix. */
export const ANONYMOUS_TENANT_PREFIX = 'anon-'

/** Why `tenant` is not a valid configured tenant name (with the fix), or undefined. */
export function tenantNameProblem(tenant: string): string | undefined {
  if (TENANT_NAME.test(tenant) && !tenant.startsWith(ANONYMOUS_TENANT_PREFIX)) return undefined
  const lower = tenant.toLowerCase()
  const suggestion =
    lower !== tenant && TENANT_NAME.test(lower) && !lower.startsWith(ANONYMOUS_TENANT_PREFIX) ? ` (use "${lower}")` : ''
  return `tenant "${tenant.slice(0, 80)}" is not a valid tenant name${suggestion}: use 1–64 lower-case letters, digits and -, starting with a letter or digit, not starting with "${ANONYMOUS_TENANT_PREFIX}"`
}

/** Shortest configured token (`openssl rand -hex 24` gives 48 characters). */
export const MIN_TOKEN_LENGTH = 32
/** What a bearer token may contain: it travels in `Authorization: Bearer <token>` and in `a:b,c:d` lists. */
const TOKEN_ALPHABET = /^[A-Za-z0-9_~.+/=-]+$/
/** Fewest distinct characters and longest run of one character a random token plausibly has. */
const MIN_TOKEN_DISTINCT = 8
const MAX_TOKEN_RUN = 7

/** Why `token` is not good enough as a secret (naming the limit, never the token), or undefined. */
export function weakTokenReason(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) {
    return `is ${token.length} characters long; use at least ${MIN_TOKEN_LENGTH} random ones (e.g. openssl rand -hex 24)`
  }
  if (!TOKEN_ALPHABET.test(token)) {
    return 'has a character outside A–Z a–z 0–9 _ ~ . + / = - (no spaces, commas or colons): it could never be sent as a bearer token'
  }
  const distinct = new Set(token).size
  if (distinct < MIN_TOKEN_DISTINCT) {
    return `uses only ${distinct} distinct character${distinct === 1 ? '' : 's'} (at least ${MIN_TOKEN_DISTINCT}): it is guessable`
  }
  let run = 1
  for (let i = 1; i < token.length; i++) {
    run = token[i] === token[i - 1] ? run + 1 : 1
    if (run > MAX_TOKEN_RUN)
      return `repeats one character ${run} times in a row (at most ${MAX_TOKEN_RUN}): it is guessable`
  }
  for (let period = 1; period <= token.length / 2; period++) {
    if (token.slice(period) === token.slice(0, token.length - period)) {
      return `is a ${period}-character pattern repeated: it is guessable`
    }
  }
  return undefined
}

/** One configured tenant token. A tenant may have several (rotation: the old and the new one at once). */
export interface TenantToken {
  tenant: string
  token: string
}

/** A token list that parsed, or why it did not (naming the tenant, never the token). */
export type TokenListResult = { tokens: TenantToken[]; problem?: undefined } | { tokens?: undefined; problem: string }

/**
 * Parses `tenant:token` entries separated by commas or new lines (`TOKENS`, and the lines
 * of `TOKENS_FILE`, where `#` starts a comment line). A tenant may appear with several
 * tokens; one token may not appear twice (it would be ambiguous whose it is).
 */
export function parseTokenList(text: string): TokenListResult {
  const tokens: TenantToken[] = []
  const seen = new Set<string>()
  const entries = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((entry) => entry.trim())
  for (const entry of entries) {
    if (entry === '') continue
    const colon = entry.indexOf(':')
    if (colon <= 0) return { problem: 'expected "tenant:token" pairs, got an entry without a tenant' }
    const tenant = entry.slice(0, colon)
    const token = entry.slice(colon + 1)
    const badName = tenantNameProblem(tenant)
    if (badName !== undefined) return { problem: badName }
    const weak = weakTokenReason(token)
    if (weak !== undefined) return { problem: `the token of tenant "${tenant}" ${weak}` }
    if (seen.has(token)) return { problem: `the same token twice (tenant "${tenant}")` }
    seen.add(token)
    tokens.push({ tenant, token })
  }
  return { tokens }
}
