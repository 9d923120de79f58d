import { z } from 'zod'

/** The HTTP methods of the sealbox API. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** Where every versioned route lives (health and metrics are at the root). */
export const API_PREFIX = '/api/v1'

/**
 * One route of the sealbox HTTP API, written once: the server registers it from this
 * (validation, reply serialization and the OpenAPI docs at `/docs`) and `SealboxClient`
 * parses its replies with it. A binary (envelope) request body has no schema: `consumes`
 * names its media type and `description` its layout; a binary reply is `BinaryBodySchema`
 * with its media type in `produces`.
 */
export interface RouteContract {
  method: HttpMethod
  /** The full path, `:name` for a path parameter. */
  path: string
  /** OpenAPI grouping, one-line summary and details. */
  tags: readonly string[]
  summary: string
  description?: string
  params?: z.ZodType
  querystring?: z.ZodType
  /**
   * Request headers the route reads (lower-case names). A loose object: the route sees every
   * other header too, and a client sends these through `headers`.
   */
  headers?: z.ZodType
  /** A JSON body. */
  body?: z.ZodType
  consumes?: readonly string[]
  produces?: readonly string[]
  /**
   * A POST whose reply is a pure function of its request (search, evaluate), so a client
   * may send it again after a lost connection or a 502/503/504. GET, PUT and DELETE are
   * idempotent by HTTP's definition and need not say so.
   */
  idempotent?: boolean
  /** Replies by HTTP status: a JSON body's schema, `NoBodySchema` (204, 304) or `BinaryBodySchema`. */
  response: Readonly<Record<number, z.ZodType>>
}

/** A reply without a body (204 No Content, 304 Not Modified). */
export const NoBodySchema = z.undefined()

/**
 * A binary reply (sealbox envelopes back to back): never serialized as JSON, documented
 * as a byte string of the route's `produces` media type.
 */
export const BinaryBodySchema = z.instanceof(Uint8Array).meta({ type: 'string', format: 'binary' })

/**
 * What a call of route `R` sends, inferred from its contract: `params` when its path has
 * parameters, `query` when it has a query string, `body` when it takes one (the JSON
 * schema's input, or bytes for a binary body named by `consumes`).
 */
export type RouteInput<R extends RouteContract> = (R extends { params: z.ZodType }
  ? { params: z.input<R['params']> }
  : { params?: never }) &
  (R extends { querystring: z.ZodType } ? { query?: z.input<R['querystring']> } : { query?: never }) &
  (R extends { body: z.ZodType }
    ? { body: z.input<R['body']> }
    : R extends { consumes: readonly string[] }
      ? { body: Uint8Array }
      : { body?: never })

/**
 * A reply of route `R` the contract answers with, inferred from its contract: each of its
 * statuses with that status's body (`undefined` for `NoBodySchema`, bytes for
 * `BinaryBodySchema`), so narrowing on `status` narrows `body`.
 */
export type RouteReply<R extends RouteContract> = {
  [S in keyof R['response'] & number]: { status: S; body: z.output<R['response'][S]> }
}[keyof R['response'] & number]
