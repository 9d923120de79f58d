import { ErrorReplySchema, HeError, type RouteContract } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'

/** A reply in another media type than JSON, in OpenAPI's per-media-type form. */
type MediaReply<S> = { content: Record<string, { schema: S }> }

/** A contract route's replies as Fastify takes them: non-JSON ones under their media type, errors as JSON. */
type ContractReplies<C extends RouteContract> = {
  [S in keyof C['response']]: C extends { produces: readonly string[] }
    ? MediaReply<C['response'][S]>
    : C['response'][S]
} & { '4xx': typeof ErrorReplySchema; '5xx': typeof ErrorReplySchema }

/** A contract route's schema as Fastify takes it: its parts, docs and replies, errors included. */
type ContractSchema<C extends RouteContract> = Omit<C, 'method' | 'path' | 'response' | 'produces' | 'idempotent'> & {
  response: ContractReplies<C>
}

/**
 * Fastify route options from a route of he-core's HTTP contract: its method, its URL
 * below `prefix` (where the plugin registering it is mounted) and its schema, so the
 * route's validation, reply serialization and `/docs` entry all come from the contract.
 * Every route may answer the error body (JSON) for 4xx and 5xx; the replies of a route that
 * `produces` another media type are documented under that type (a route-wide `produces`
 * would document its errors so too). The schema is a new object per call: hooks (the API
 * plugin's `security` marker) mutate it.
 */
export function routeFromContract<C extends RouteContract>(
  contract: C,
  prefix = '',
): { method: C['method']; url: string; schema: ContractSchema<C> } {
  // `idempotent` is for clients (when to send again), not part of Fastify's schema.
  const { method, path, response, produces, idempotent: _idempotent, ...schema } = contract
  if (!path.startsWith(prefix)) {
    throw new HeError('INTERNAL', `route ${method} ${path} is not under ${prefix}, where it is being registered`)
  }
  const replies: Record<string, unknown> = {}
  for (const [status, reply] of Object.entries(response)) {
    replies[status] = produces
      ? { content: Object.fromEntries(produces.map((type) => [type, { schema: reply }])) }
      : reply
  }
  Object.assign(replies, { '4xx': ErrorReplySchema, '5xx': ErrorReplySchema })
  // The loop builds exactly ContractReplies<C>; TypeScript cannot follow a mapped type through it.
  return { method, url: path.slice(prefix.length), schema: { ...schema, response: replies as ContractReplies<C> } }
}

/**
 * Makes `app` compile route schemas as zod (he-core's contract): a request they refuse
 * is FST_ERR_VALIDATION (answered as INVALID_INPUT naming the field by `sendError`), and
 * a JSON reply is checked against its status's schema before it is sent: a reply outside
 * the contract (a missing, extra or mistyped field) is a 500, never silently trimmed.
 */
export function useContractSchemas(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
}
