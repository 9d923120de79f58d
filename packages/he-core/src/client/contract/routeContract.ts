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
  /** A JSON body. */
  body?: z.ZodType
  consumes?: readonly string[]
  produces?: readonly string[]
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
