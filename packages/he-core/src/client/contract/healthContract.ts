import { z } from 'zod'
import type { RouteContract } from './routeContract.ts'

/** The executors a sealbox server can run work on. */
export const SERVER_EXECUTOR_MODES = ['pool', 'inline', 'process'] as const
export const ServerExecutorModeSchema = z.enum(SERVER_EXECUTOR_MODES)
export type ServerExecutorMode = z.infer<typeof ServerExecutorModeSchema>

/** `GET /healthz`. */
export const ServerHealthSchema = z.object({ status: z.literal('ok') }).strict()
export type ServerHealth = z.infer<typeof ServerHealthSchema>

/** `GET /readyz` (200 when ready, 503 while warming up or overloaded). */
export const ServerReadinessSchema = z
  .object({
    ready: z.boolean(),
    /** Present (true) while the server's event loop is overloaded: other calls would answer 503. */
    overloaded: z.literal(true).optional(),
    executors: z.array(
      z
        .object({
          mode: ServerExecutorModeSchema,
          /** Workers wanted. */
          size: z.number().int(),
          /** Workers warm and in service. */
          warm: z.number().int(),
          /** Jobs running now. */
          running: z.number().int(),
          /** Jobs waiting in the fair queue. */
          queued: z.number().int(),
          /** Workers replaced after a crash, a hang or a retirement. */
          replacements: z.number().int(),
          /** The executor requests run on unless they ask for another. */
          default: z.boolean(),
        })
        .strict(),
    ),
    /**
     * The key store as this node last saw it. `degraded` (unreachable) does not make the
     * node unready: key sets it confirmed recently are still served, the rest answer 503
     * STORE_UNAVAILABLE + Retry-After until the store is back.
     */
    store: z
      .object({
        type: z.enum(['file', 'postgres']),
        status: z.enum(['ok', 'degraded']),
        /** When the status last changed. */
        since: z.string(),
        /** Why the store is degraded. */
        reason: z.string().optional(),
        /** Requests answered from a key-set record confirmed before an outage, since start. */
        staleServes: z.number().int(),
      })
      .strict()
      .optional(),
  })
  .strict()
export type ServerReadiness = z.infer<typeof ServerReadinessSchema>

/** Liveness: answered by the server's event loop and nothing else (its latency is the loop's). */
export const healthRoute = {
  method: 'GET',
  path: '/healthz',
  tags: ['health'],
  summary: 'Liveness: the event loop answers',
  response: { 200: ServerHealthSchema },
} as const satisfies RouteContract

export const readinessRoute = {
  method: 'GET',
  path: '/readyz',
  tags: ['health'],
  summary: 'Readiness: every worker warm (SEAL loaded, database processed) and the event loop not overloaded',
  response: { 200: ServerReadinessSchema, 503: ServerReadinessSchema },
} as const satisfies RouteContract

/** Prometheus text, not JSON. */
export const metricsRoute = {
  method: 'GET',
  path: '/metrics',
  tags: ['health'],
  summary: 'Prometheus metrics',
  produces: ['text/plain'],
  response: { 200: z.string() },
} as const satisfies RouteContract
