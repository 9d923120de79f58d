import { z } from 'zod'
import type { StoppedBy } from '../load/runLoadPhase.ts'

/** What the keys load generator process is asked to do (sent over its IPC channel). */
export const LoadJobSchema = z.object({
  baseUrl: z.string(),
  cacheDir: z.string(),
  configId: z.string(),
  /** Users 0…users−1; rank k of the Zipf law is user k. */
  users: z.number().int().positive(),
  /** Skip this many users (a disjoint population, e.g. for cold-key runs). */
  firstUser: z.number().int().nonnegative().default(0),
  zipfS: z.number().nonnegative(),
  seed: z.number().int(),
  requests: z.number().int().positive(),
  /** Requests sent first and not recorded (fills caches to their steady state). */
  warmupRequests: z.number().int().nonnegative().default(0),
  maxSeconds: z.number().positive(),
  concurrency: z.number().int().positive(),
  keySet: z.string(),
  /** Distinct key sets the users share (see `readUserKeyMaterial`). */
  distinctKeys: z.number().int().positive().optional(),
  /** Keep the response bytes of the first answer of these users (to check them). */
  keepResponsesOf: z.array(z.number().int()).default([]),
})
export type LoadJob = z.infer<typeof LoadJobSchema>

/** One recorded request. */
export interface LoadSample {
  user: number
  status: number
  /** Client wall time, ms. */
  latencyMs: number
  /** Server-Timing phases, ms. */
  phases: Record<string, number>
  /** Start, ms since the measured part began. */
  startMs: number
  code?: string
}

export interface LoadResult {
  samples: LoadSample[]
  /** Wall time of the measured part, ms. */
  wallMs: number
  stoppedBy: StoppedBy
  /** base64 response bytes by user index. */
  responses: Record<string, string>
}
