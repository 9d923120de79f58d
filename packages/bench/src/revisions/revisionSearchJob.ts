import { z } from 'zod'

/** What the parent asks one revision child to time: the default config of one shape. */
export const RevisionSearchJobSchema = z.object({
  /** The checkout whose he-core runs (absolute path). */
  root: z.string().min(1),
  rows: z.number().int().positive(),
  dimension: z.number().int().positive(),
  warmup: z.number().int().nonnegative(),
  samples: z.number().int().positive(),
})
export type RevisionSearchJob = z.infer<typeof RevisionSearchJobSchema>

/** One child's answer: per-query server figures (ms) and whether every score was exact. */
export interface RevisionSearchSample {
  /** The evaluate's whole server time (decode + load + compute + save), wall clock. */
  totalMs: number[]
  computeMs: number[]
  /** This thread's CPU time per evaluate. */
  cpuMs: number[]
  exact: boolean
  config: { babyStep: number; hoistBabySteps: boolean; configId: string }
}
