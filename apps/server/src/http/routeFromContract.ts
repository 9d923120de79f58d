import { ErrorReplySchema, HeError, type RouteContract } from '@sealbox/he-core/client'
import type { FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'

/** A contract route's schema as Fastify takes it: its parts, docs and replies, errors included. */
type ContractSchema<C extends RouteContract> = Omit<C, 'method' | 'path' | 'response'> & {
  response: C['response'] & { '4xx': typeof ErrorReplySchema; '5xx': typeof ErrorReplySchema }
}

/**
 * Fastify route options from a route of he-core's HTTP contract: its method, its URL
 * below `prefix` (where the plugin registering it is mounted) and its schema, so the
 * route's validation, reply serialization and `/docs` entry all come from the contract.
 * Every route may answer the error body for 4xx and 5xx. The schema is a new object per
 * call: hooks (the API plugin's `security` marker) mutate it.
 */
export function routeFromContract<C extends RouteContract>(
  contract: C,
  prefix = '',
): { method: C['method']; url: string; schema: ContractSchema<C> } {
  const { method, path, response, ...schema } = contract
  if (!path.startsWith(prefix)) {
    throw new HeError('INTERNAL', `route ${method} ${path} is not under ${prefix}, where it is being registered`)
  }
  return {
    method,
    url: path.slice(prefix.length),
    schema: { ...schema, response: { ...response, '4xx': ErrorReplySchema, '5xx': ErrorReplySchema } },
  }
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
