/**
 * True when an `If-None-Match` header value matches the current representation's
 * `etag` (RFC 9110 §13.1.2): `*` matches any, and entity tags compare weakly — `W/"x"`
 * matches `"x"` — in a comma-separated list. A GET that matches answers 304.
 */
export function ifNoneMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '')
  const wanted = opaque(etag)
  return header.split(',').some((tag) => opaque(tag) === wanted)
}
