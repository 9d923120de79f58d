import { z } from 'zod'

/**
 * The messages between the benchmark orchestrator and a harness running in some engine
 * (a Node child, a browser page, the native Python harness). Everything that crosses a
 * process or a socket is parsed with these schemas, so no engine can hand back a shape
 * the reports do not expect.
 */

/**
 * The contexts the harness builds: SEAL's three schemes at SEAL's benchmark parameters, and
 * `bgv-search`, BGV at the private search's parameters (n = 4096, coeff modulus [27, 28, 28],
 * t = 65537: every prime below 2^31, so he-ring's kernel applies), for the `Search` rows.
 */
export const SchemeSchema = z.enum(['bfv', 'bgv', 'ckks', 'bgv-search'])
export type Scheme = z.infer<typeof SchemeSchema>

/**
 * Row groups, in display order within one n (KeyGen, BFV, CKKS as published; BGV, Search and
 * Setup are ours). Search: SEAL and he-ring's kernel at the private search's parameters.
 */
export const OpGroupSchema = z.enum(['KeyGen', 'BFV', 'CKKS', 'BGV', 'Search', 'Setup'])
export type OpGroup = z.infer<typeof OpGroupSchema>

/** How long a cell may take, per n: the knob that keeps a full run inside its time budget. */
export const CellBudgetSchema = z.object({
  n: z.number().int(),
  /** Wall-clock cap for the timed samples of one cell (warm-up excluded), in ms. */
  measureMs: z.number().positive(),
  /** Wall-clock cap for the warm-up of one cell, in ms. */
  warmupMs: z.number().nonnegative(),
})
export type CellBudget = z.infer<typeof CellBudgetSchema>

/** How every cell is measured; identical for every engine of one run. */
export const MeasurePolicySchema = z.object({
  /** Calls per sample, like sealbench's `Iterations(10)`; cheap ops get more (see `minSampleMs`). */
  iterations: z.number().int().positive(),
  /** Timed samples per cell; the report shows their median and minimum. */
  repeats: z.number().int().positive(),
  /** Fewest samples a budget cap may leave. */
  minRepeats: z.number().int().positive(),
  /** A sample lasts at least this long, so coarse browser timers (5–20 µs steps) stay negligible. */
  minSampleMs: z.number().positive(),
  /** Warm-up stops once this many consecutive warm-up samples agree within `warmupTolerance`... */
  warmupWindow: z.number().int().positive(),
  warmupTolerance: z.number().positive(),
  /** ...and at least this many calls ran (cold call included). */
  warmupMinCalls: z.number().int().nonnegative(),
  /** Per-n caps. */
  budgets: z.array(CellBudgetSchema),
  /**
   * Engine warm-up before the first cell: every planned op at n=4096 in rotation, for at
   * least this long, and on (up to 4× as long) until the cost of a round has settled.
   */
  engineWarmupMs: z.number().nonnegative(),
})
export type MeasurePolicy = z.infer<typeof MeasurePolicySchema>

/** What one engine is asked to run. */
export const BenchPlanSchema = z.object({
  runId: z.string(),
  ns: z.array(z.number().int()),
  /** Op ids (`BFV/EncryptSecret`, …) in catalog order. */
  ops: z.array(z.string()),
  policy: MeasurePolicySchema,
  /** Seed of the harness's PRNG (inputs only; SEAL's own randomness is its own). */
  seed: z.number().int(),
  /** Schemes left out above some n (the default run's time budget), with the reason shown as a skip. */
  limits: z.array(z.object({ scheme: SchemeSchema, maxN: z.number().int(), reason: z.string() })).optional(),
})
export type BenchPlan = z.infer<typeof BenchPlanSchema>

/** One timed row for one engine. All times in microseconds per call. */
export const CellResultSchema = z.object({
  n: z.number().int(),
  logQ: z.number().int(),
  group: OpGroupSchema,
  op: z.string(),
  /** Mean µs per call of each timed sample. */
  samplesUs: z.array(z.number()),
  callsPerSample: z.number().int().positive(),
  /** The very first call of this op at this n, before any warm-up (µs). */
  firstCallUs: z.number(),
  warmupCalls: z.number().int().nonnegative(),
  warmupSamplesUs: z.array(z.number()),
  medianUs: z.number(),
  minUs: z.number(),
  meanUs: z.number(),
  /** True when the per-n budget lowered the calls per sample or the number of samples. */
  capped: z.boolean(),
  /** Wall time spent on this cell, warm-up and setup included (ms). */
  wallMs: z.number(),
})
export type CellResult = z.infer<typeof CellResultSchema>

export const SanityCheckSchema = z.object({
  check: z.string(),
  ok: z.boolean(),
  detail: z.string(),
})
export type SanityCheck = z.infer<typeof SanityCheckSchema>

/** One (n, scheme) environment: its parameters, set-up cost and correctness checks. */
export const EnvReportSchema = z.object({
  n: z.number().int(),
  scheme: SchemeSchema,
  logQ: z.number().int(),
  coeffModulusBits: z.array(z.number().int()),
  plainModulus: z.string().optional(),
  ckksScaleBits: z.number().optional(),
  usingKeyswitching: z.boolean(),
  /** SEALContext construction (expandModChain=true, SecLevelType.none), ms. */
  contextMs: z.number(),
  /** KeyGenerator + public key + relin keys + Galois keys for steps {1, columns}, ms. */
  keysMs: z.number(),
  freshNoiseBudgetBits: z.number().optional(),
  sanity: z.array(SanityCheckSchema),
})
export type EnvReport = z.infer<typeof EnvReportSchema>

export const SkippedRowSchema = z.object({
  n: z.number().int(),
  group: OpGroupSchema,
  op: z.string(),
  reason: z.string(),
})
export type SkippedRow = z.infer<typeof SkippedRowSchema>

/** Per-op cost before and after the engine warm-up (shows the JIT tiering). */
export const WarmupTraceSchema = z.object({
  op: z.string(),
  firstUs: z.number(),
  lastUs: z.number(),
  calls: z.number().int(),
})
export type WarmupTrace = z.infer<typeof WarmupTraceSchema>

/** Facts the harness can see from inside its engine. */
export const RuntimeFactsSchema = z.object({
  userAgent: z.string().optional(),
  crossOriginIsolated: z.boolean().optional(),
  sharedArrayBuffer: z.boolean().optional(),
  hardwareConcurrency: z.number().optional(),
  /** Smallest step seen between two clock readings, µs. */
  timerResolutionUs: z.number(),
  /** WASM heap size at the end (bytes), when the engine exposes it. */
  heapBytesAfter: z.number().optional(),
})
export type RuntimeFacts = z.infer<typeof RuntimeFactsSchema>

export const HarnessResultSchema = z.object({
  runtime: RuntimeFactsSchema,
  envs: z.array(EnvReportSchema),
  cells: z.array(CellResultSchema),
  skipped: z.array(SkippedRowSchema),
  engineWarmup: z
    .object({
      ms: z.number(),
      n: z.number().int(),
      /** Sum over the ops of µs per call, after each round: falls as the JIT tiers up, then settles. */
      roundCostUs: z.array(z.number()),
      /** True when the round cost settled before the time cap. */
      settled: z.boolean(),
      trace: z.array(WarmupTraceSchema),
    })
    .optional(),
  /** SEAL handles the harness created and did not delete (must be 0). */
  leakedHandles: z.number().int(),
  wallMs: z.number(),
})
export type HarnessResult = z.infer<typeof HarnessResultSchema>

/**
 * What the orchestrator asks a running harness to do, one step at a time, so that every
 * engine measures the same cell within seconds of the others (fair on a busy machine).
 * Each command is answered by an `ack` event with its `seq` once its events are sent.
 */
export const HarnessCommandSchema = z.discriminatedUnion('type', [
  z.object({ seq: z.number().int(), type: z.literal('warmup') }),
  /** Build the (n, scheme) environment (or note why its rows are skipped). */
  z.object({ seq: z.number().int(), type: z.literal('open'), n: z.number().int(), scheme: SchemeSchema }),
  /** Measure one row in the open environment. */
  z.object({ seq: z.number().int(), type: z.literal('cell'), op: z.string() }),
  z.object({ seq: z.number().int(), type: z.literal('close') }),
  /** Send `done` with the whole result. */
  z.object({ seq: z.number().int(), type: z.literal('finish') }),
])
export type HarnessCommand = z.infer<typeof HarnessCommandSchema>

/** A command before the orchestrator numbers it. */
export type HarnessCommandBody = {
  [K in HarnessCommand['type']]: Omit<Extract<HarnessCommand, { type: K }>, 'seq'>
}[HarnessCommand['type']]

/** Streamed from a harness while it runs; `done` carries the whole result. */
export const HarnessEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ack'), seq: z.number().int() }),
  z.object({ type: z.literal('phase'), n: z.number().int(), label: z.string() }),
  z.object({ type: z.literal('cell'), cell: CellResultSchema }),
  z.object({ type: z.literal('skip'), row: SkippedRowSchema }),
  z.object({ type: z.literal('env'), env: EnvReportSchema }),
  z.object({ type: z.literal('done'), result: HarnessResultSchema }),
  z.object({ type: z.literal('error'), message: z.string(), stack: z.string().optional() }),
])
export type HarnessEvent = z.infer<typeof HarnessEventSchema>
