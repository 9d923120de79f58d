/** What a forwarded request id may look like: nginx's `$request_id` (32 hex), a UUID, a trace id. */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/

/**
 * The `X-Request-Id` a proxy forwarded, when it is one plain token of 8–128 safe
 * characters; undefined otherwise (absent, repeated, or anything that could forge a log
 * line), and the server picks its own.
 */
export function forwardedRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : undefined
}
