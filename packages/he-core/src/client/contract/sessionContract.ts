import { z } from 'zod'
import { API_PREFIX, type RouteContract } from './routeContract.ts'

/** `local`: anyone who can reach the server may get an anonymous token. `production`: configured tokens only. */
export const SERVER_MODES = ['local', 'production'] as const

/** `POST /api/v1/session` (local mode): a new anonymous tenant and its bearer token. */
export const ServerSessionSchema = z
  .object({
    token: z.string(),
    tenant: z.string(),
    mode: z.enum(SERVER_MODES),
  })
  .strict()
export type ServerSession = z.infer<typeof ServerSessionSchema>

export const createSessionRoute = {
  method: 'POST',
  path: `${API_PREFIX}/session`,
  tags: ['session'],
  summary: 'Get an anonymous bearer token (local mode only)',
  description:
    'Returns a new tenant and its token. Production servers refuse (403): their tokens are configured by the operator (TOKENS).',
  response: { 201: ServerSessionSchema },
} as const satisfies RouteContract
