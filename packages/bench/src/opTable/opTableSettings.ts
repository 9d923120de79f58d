import { fileURLToPath } from 'node:url'
import { ENGINE_IDS } from '../engines/BenchEngine.ts'
import { ALL_NS } from '../harness/benchParameters.ts'
import type { BenchPlan, CellBudget, MeasurePolicy } from '../protocol/benchProtocol.ts'
import type { OpTableFlags } from './opTableFlags.ts'
import { selectOps } from './opTableFlags.ts'

/** The package's results folder (committed: the latest full run). */
export const RESULTS_DIR = fileURLToPath(new URL('../../results/', import.meta.url))

/**
 * Per-n caps that keep a full default run (5 engines, all rows) inside 30 minutes on a
 * 2-core machine; n=4096 and 8192 (the headline) get the most. Big-n rows are 0.1–2 s
 * per call, so they get few calls (never fewer than a cold call plus `minRepeats`
 * samples) — sealbench's 10 fixed iterations would take hours there in a browser.
 */
export const DEFAULT_BUDGETS: readonly CellBudget[] = [
  { n: 1024, measureMs: 150, warmupMs: 100 },
  { n: 2048, measureMs: 150, warmupMs: 100 },
  { n: 4096, measureMs: 400, warmupMs: 200 },
  { n: 8192, measureMs: 600, warmupMs: 200 },
  { n: 16384, measureMs: 500, warmupMs: 150 },
  { n: 32768, measureMs: 400, warmupMs: 100 },
]

const QUICK_BUDGETS: readonly CellBudget[] = ALL_NS.map((n) => ({ n, measureMs: 150, warmupMs: 60 }))

/** `--quick`: a handful of rows at n=4096 that touch every context (the search's too) and key kind. */
export const QUICK_OPS: readonly string[] = [
  'KeyGen/Public',
  'KeyGen/Relin',
  'BFV/EncryptPublic',
  'BFV/Decrypt',
  'BFV/EvaluateMulCt',
  'BFV/EvaluateRotateRows',
  'CKKS/EncodeDouble',
  'CKKS/EvaluateMulCt',
  'CKKS/EvaluateRotate',
  'BGV/EvaluateAddCt',
  'Search/EvaluateRotateRows',
  'Search/KernelRotate',
  'Setup/ContextBFV',
]

/**
 * BGV is not in the published table; at n=32768 it would cost every WASM engine another
 * ~20 s context plus ~30 s of rows, so the default run stops BGV at 16384. An explicit
 * `--n` lifts the limit.
 */
export const DEFAULT_BGV_LIMIT = {
  scheme: 'bgv',
  maxN: 16384,
  reason: 'BGV above n=16384 is left out of the default run (time budget); run it with --n 32768 --ops BGV',
} as const

/** Everything one `npm run benchmark` invocation does: defaults (full or `--quick`) under the explicit flags. */
export function resolveOpTableSettings(flags: OpTableFlags, publishedIds: ReadonlySet<string>) {
  const quick = flags.quick === true
  const policy: MeasurePolicy = {
    iterations: flags.iterations ?? (quick ? 3 : 10),
    repeats: flags.repeats ?? (quick ? 3 : 5),
    minRepeats: 3,
    minSampleMs: 2,
    warmupWindow: 3,
    warmupTolerance: 0.1,
    warmupMinCalls: quick ? 2 : 5,
    budgets: [...(quick ? QUICK_BUDGETS : DEFAULT_BUDGETS)],
    engineWarmupMs: flags['warmup-ms'] ?? (quick ? 300 : 8000),
  }
  policy.minRepeats = Math.min(policy.minRepeats, policy.repeats)
  const plan: BenchPlan = {
    runId: new Date().toISOString(),
    ns: flags.n ?? (quick ? [4096] : [...ALL_NS]),
    ops: flags.ops ? selectOps(flags.ops, publishedIds) : quick ? [...QUICK_OPS] : selectOps(['all'], publishedIds),
    policy,
    seed: flags.seed ?? 1,
    ...(flags.n || quick ? {} : { limits: [DEFAULT_BGV_LIMIT] }),
  }
  return {
    engines: flags.engines ?? [...ENGINE_IDS],
    /** `interleaved`: every engine measures a cell before the next one starts; `sequential`: engine after engine. */
    schedule: flags.schedule ?? ('interleaved' as const),
    plan,
    outDir: flags.out ?? (quick ? `${RESULTS_DIR}tmp/quick` : RESULTS_DIR),
    quick,
    installBrowsers: flags['install-browsers'] === true,
  }
}
export type OpTableSettings = ReturnType<typeof resolveOpTableSettings>
