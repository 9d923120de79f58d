import { HeError } from '@sealbox/he-core'

/**
 * The request's one `Authorization` header value, from the raw header lines. Node keeps
 * only the first of repeated `Authorization` lines, so a request with two would be served
 * as whichever one came first — a proxy that appends its own credential, or a client
 * that sends another tenant's beside its own, must not be guessed at: INVALID_INPUT.
 */
export function authorizationOf(rawHeaders: readonly string[]): string | undefined {
  let value: string | undefined
  let count = 0
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() !== 'authorization') continue
    count++
    value = rawHeaders[i + 1]
  }
  if (count > 1) {
    throw new HeError('INVALID_INPUT', `the request has ${count} Authorization headers; send exactly one`, {
      details: { field: 'authorization', found: count },
    })
  }
  return value
}
