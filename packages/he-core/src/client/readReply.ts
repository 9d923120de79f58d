// How SealboxClient reads the server's replies against the contract: paths from a route,
// success bodies checked against their schema, error bodies turned into HeErrors.
import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { ErrorReplySchema } from './contract/errorContract.ts'
import type { RouteContract } from './contract/routeContract.ts'
import { parseServerTiming } from './serverTiming.ts'

/** A route's path with its `:name` segments filled in and its query string (undefined values left out). */
export function pathOf(
  route: RouteContract,
  call: { params?: Record<string, string>; query?: Record<string, string | number | undefined> },
): string {
  const path = route.path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = call.params?.[name]
    if (value === undefined) throw new HeError('INVALID_INPUT', `${route.method} ${route.path}: no value for :${name}`)
    return encodeURIComponent(value)
  })
  const query = Object.entries(call.query ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [`${encodeURIComponent(name)}=${encodeURIComponent(value)}`],
  )
  return query.length === 0 ? path : `${path}?${query.join('&')}`
}

/**
 * A server that answers outside its contract is a bug (or another version): INTERNAL,
 * said plainly, never a value of the wrong shape handed to the caller.
 */
export function contractError(route: RouteContract, what: string, cause?: unknown): HeError {
  return new HeError('INTERNAL', `${route.method} ${route.path}: the reply does not match the contract (${what})`, {
    ...(cause === undefined ? {} : { cause }),
    details: { contract: true },
  })
}

/** The body of a successful reply as JSON, for a status the route's contract answers with JSON. */
export async function jsonOf(response: Response, route: RouteContract): Promise<unknown> {
  if (!(response.status in route.response)) {
    throw contractError(route, `HTTP ${response.status} is not one of its replies`)
  }
  try {
    return await response.json()
  } catch (error) {
    throw contractError(route, 'the body is not JSON', error)
  }
}

/** A reply checked against its schema in the contract. */
export function parseReply<S extends z.ZodType>(
  schema: S,
  value: unknown,
  route: RouteContract,
  status: number,
): z.output<S> {
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.length ? issue.path.join('.') : 'body'
    throw contractError(route, `HTTP ${status} ${field}: ${issue?.message ?? 'invalid'}`, parsed.error)
  }
  return parsed.data
}

/** Turns an error response into an HeError carrying the server's code. */
export async function heErrorOfResponse(response: Response): Promise<HeError> {
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN)
  const details: Record<string, unknown> = {
    status: response.status,
    timing: parseServerTiming(response.headers.get('server-timing')),
    ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
  }
  let text = ''
  try {
    text = await response.text()
    const parsed = ErrorReplySchema.safeParse(JSON.parse(text))
    if (parsed.success) {
      const { error } = parsed.data
      return new HeError(error.code, error.message, {
        details: { ...details, hint: error.hint, ...(error.details ? { server: error.details } : {}) },
      })
    }
  } catch {
    // Not JSON at all: fall through.
  }
  // Not our error body (a proxy's page, a gateway timeout): said with the status and the text.
  const code = response.status === 503 ? 'OVERLOADED' : response.status === 504 ? 'TIMEOUT' : 'INTERNAL'
  return new HeError(code, `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, { details })
}
