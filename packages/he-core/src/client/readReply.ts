// How SealboxClient reads the server's replies against the contract: paths from a route,
// success bodies checked against their schema, error bodies turned into HeErrors.
import type { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { ServerWork } from './clientTypes.ts'
import { ErrorReplySchema } from './contract/errorContract.ts'
import { ServerExecutorModeSchema } from './contract/healthContract.ts'
import { SEALBOX_HEADERS } from './contract/httpContract.ts'
import { BinaryBodySchema, NoBodySchema, type RouteContract, type RouteReply } from './contract/routeContract.ts'
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

/**
 * A reply read as its route's contract says for its status: no body, the bytes of a
 * binary body, or text (`produces` text) or JSON checked against the status's schema.
 * A status the route does not answer with is a contract error.
 */
export async function readRouteReply<R extends RouteContract>(route: R, response: Response): Promise<RouteReply<R>> {
  const schema: z.ZodType | undefined = route.response[response.status]
  if (schema === undefined) throw contractError(route, `HTTP ${response.status} is not one of its replies`)
  let body: unknown
  if (schema === NoBodySchema) {
    body = undefined
  } else if (schema === BinaryBodySchema) {
    body = new Uint8Array(await response.arrayBuffer())
  } else if (route.produces?.some((type) => type.startsWith('text/'))) {
    body = parseReply(schema, await response.text(), route, response.status)
  } else {
    body = parseReply(schema, await jsonOf(response, route), route, response.status)
  }
  // The status is one of the route's and the body passed that status's schema.
  return { status: response.status, body } as RouteReply<R>
}

async function jsonOf(response: Response, route: RouteContract): Promise<unknown> {
  try {
    return await response.json()
  } catch (error) {
    throw contractError(route, 'the body is not JSON', error)
  }
}

/** What the reply's headers say of the work: its `Server-Timing` phases and the executor that ran it. */
export function serverWorkOf(response: Response, elapsedMs: number): ServerWork {
  const executor = ServerExecutorModeSchema.safeParse(response.headers.get(SEALBOX_HEADERS.executor))
  return {
    timing: parseServerTiming(response.headers.get('server-timing')),
    executor: executor.success ? executor.data : undefined,
    elapsedMs,
  }
}

function parseReply<S extends z.ZodType>(schema: S, value: unknown, route: RouteContract, status: number): z.output<S> {
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
