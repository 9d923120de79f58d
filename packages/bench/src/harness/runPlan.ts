import type {
  BenchPlan,
  CellBudget,
  CellResult,
  EnvReport,
  HarnessEvent,
  HarnessResult,
  RuntimeFacts,
  Scheme,
  SkippedRow,
  WarmupTrace,
} from '../protocol/benchProtocol.ts'
import { BenchEnv, type Clock, type Seal } from './BenchEnv.ts'
import { paramFacts } from './benchParameters.ts'
import { describeError } from './describeError.ts'
import { liveBenchHandles } from './HandleArena.ts'
import { measureCell, timeCalls, timerResolutionUs } from './measureCell.ts'
import { findOp, type OpSpec, opApplies, skipReason } from './opCatalog.ts'
import { OP_FACTORIES } from './ops/opFactories.ts'
import type { PreparedOp } from './ops/PreparedOp.ts'
import { Random } from './Random.ts'
import { runSanityChecks } from './sanityChecks.ts'
import { isStable } from './stats.ts'

/** What an engine-specific entry (Node child, browser worker) hands the shared harness. */
export interface HarnessOptions {
  seal: Seal
  plan: BenchPlan
  /** `performance.now` of the engine. */
  now: Clock
  /** Receives progress; awaited, so a browser can post it before the next cell. */
  emit: (event: HarnessEvent) => void | Promise<void>
  /** Facts only the engine knows (user agent, isolation). */
  runtime?: Omit<RuntimeFacts, 'timerResolutionUs' | 'heapBytesAfter'>
  /** WASM heap size, when the engine can see it. */
  heapBytes?: () => number | undefined
}

/** Schemes in execution order: CKKS first because KeyGen rows use its context (as sealbench). */
const SCHEME_ORDER: readonly Scheme[] = ['ckks', 'bfv', 'bgv']

/** n of the engine warm-up: large enough to run every op kind, small enough to be quick. */
const WARMUP_N = 4096

/** The engine warm-up may run this many times `engineWarmupMs` while the JIT is still tiering up. */
const WARMUP_CAP_FACTOR = 4

/** Lets a browser flush its progress messages between cells. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

function budgetFor(plan: BenchPlan, n: number): CellBudget {
  const budgets = plan.policy.budgets
  const found = budgets.find((b) => b.n === n) ?? budgets[budgets.length - 1]
  if (!found) throw new Error('the measure policy has no budgets')
  return found
}

function planSpecs(plan: BenchPlan): OpSpec[] {
  return plan.ops.map((id) => {
    const spec = findOp(id)
    if (!spec) throw new Error(`unknown op ${id}`)
    return spec
  })
}

/**
 * Runs a benchmark plan in this engine: the same code in Node, Chromium, Firefox and
 * WebKit. For each n, one environment per scheme (sealbench's BMEnv), sanity checks,
 * then every planned row, deleting every SEAL object before the next environment.
 */
export async function runPlan(options: HarnessOptions): Promise<HarnessResult> {
  const { seal, plan, now, emit } = options
  const started = now()
  const specs = planSpecs(plan)
  const rng = new Random(plan.seed)
  const timerUs = timerResolutionUs(now)
  const envs: EnvReport[] = []
  const cells: CellResult[] = []
  const skipped: SkippedRow[] = []
  const skip = async (row: SkippedRow) => {
    skipped.push(row)
    await emit({ type: 'skip', row })
  }

  const engineWarmup =
    plan.policy.engineWarmupMs > 0 ? await warmUpEngine(seal, specs, plan, rng, now, emit) : undefined

  for (const n of plan.ns) {
    for (const scheme of SCHEME_ORDER) {
      const rows = specs.filter((s) => s.scheme === scheme)
      if (rows.length === 0) continue
      const limit = plan.limits?.find((l) => l.scheme === scheme && n > l.maxN)
      if (limit) {
        // The whole context is out of this run: skip its rows without paying for the context.
        for (const spec of rows) await skip({ n, group: spec.group, op: spec.op, reason: limit.reason })
        continue
      }
      await emit({ type: 'phase', n, label: `${scheme.toUpperCase()} context and keys` })
      await nextTurn()
      let env: BenchEnv
      try {
        env = new BenchEnv(seal, n, scheme, rng, now)
      } catch (error) {
        for (const spec of rows) await skip({ n, group: spec.group, op: spec.op, reason: describeError(error) })
        continue
      }
      try {
        const report = describeEnv(env)
        envs.push(report)
        await emit({ type: 'env', env: report })
        const facts = { usingKeyswitching: env.usingKeyswitching, coeffModulusCount: env.dataLevelPrimes }
        for (const spec of rows) {
          if (spec.group === 'Setup') {
            const cell = setupCell(env, spec)
            cells.push(cell)
            await emit({ type: 'cell', cell })
            continue
          }
          if (!opApplies(spec, facts)) {
            await skip({ n, group: spec.group, op: spec.op, reason: skipReason(spec) })
            continue
          }
          await emit({ type: 'phase', n, label: spec.id })
          await nextTurn()
          const cell = runCell(env, spec, plan, rng, now)
          if ('reason' in cell) await skip(cell)
          else {
            cells.push(cell)
            await emit({ type: 'cell', cell })
          }
        }
      } finally {
        env.dispose()
      }
    }
  }

  const heapBytesAfter = options.heapBytes?.()
  const result: HarnessResult = {
    runtime: {
      ...options.runtime,
      timerResolutionUs: timerUs,
      ...(heapBytesAfter === undefined ? {} : { heapBytesAfter }),
    },
    envs,
    cells,
    skipped,
    ...(engineWarmup ? { engineWarmup } : {}),
    leakedHandles: liveBenchHandles(),
    wallMs: now() - started,
  }
  await emit({ type: 'done', result })
  return result
}

function describeEnv(env: BenchEnv): EnvReport {
  const { checks, freshNoiseBudgetBits } = runSanityChecks(env, { keyswitching: env.n <= 8192 })
  return {
    n: env.n,
    scheme: env.scheme,
    logQ: env.logQ,
    coeffModulusBits: env.coeffModulusBits,
    ...(env.plainModulus === undefined ? {} : { plainModulus: env.plainModulus.toString() }),
    ...(env.scheme === 'ckks' ? { ckksScaleBits: Math.log2(env.ckksScale) } : {}),
    usingKeyswitching: env.usingKeyswitching,
    contextMs: env.contextMs,
    keysMs: env.keysMs,
    ...(freshNoiseBudgetBits === undefined ? {} : { freshNoiseBudgetBits }),
    sanity: checks,
  }
}

function setupCell(env: BenchEnv, spec: OpSpec): CellResult {
  const us = env.contextMs * 1000
  return {
    n: env.n,
    logQ: env.logQ,
    group: spec.group,
    op: spec.op,
    samplesUs: [us],
    callsPerSample: 1,
    firstCallUs: us,
    warmupCalls: 0,
    warmupSamplesUs: [],
    medianUs: us,
    minUs: us,
    meanUs: us,
    capped: false,
    wallMs: env.contextMs,
  }
}

function runCell(env: BenchEnv, spec: OpSpec, plan: BenchPlan, rng: Random, now: Clock): CellResult | SkippedRow {
  const t0 = now()
  let op: PreparedOp | undefined
  try {
    const factory = OP_FACTORIES[spec.id]
    if (!factory) throw new Error(`no implementation for ${spec.id}`)
    op = factory({ env, rng })
    const timing = measureCell(op, plan.policy, budgetFor(plan, env.n), now)
    return { n: env.n, logQ: env.logQ, group: spec.group, op: spec.op, ...timing, wallMs: now() - t0 }
  } catch (error) {
    return { n: env.n, group: spec.group, op: spec.op, reason: `failed: ${describeError(error)}` }
  } finally {
    op?.dispose()
  }
}

/**
 * Warms the engine's JIT before the first cell: every planned op at n=4096 in rotation,
 * for at least `engineWarmupMs` and until the cost of a round (the sum of the ops' µs per
 * call) has settled, up to 4× that long. WebKit's JavaScriptCore reaches its optimizing
 * tier only after ~100 calls, and later still on a loaded machine; the compiled WASM is
 * the same for every n, so this serves all cells.
 */
async function warmUpEngine(
  seal: Seal,
  specs: OpSpec[],
  plan: BenchPlan,
  rng: Random,
  now: Clock,
  emit: HarnessOptions['emit'],
): Promise<NonNullable<HarnessResult['engineWarmup']>> {
  await emit({ type: 'phase', n: WARMUP_N, label: 'engine warm-up' })
  await nextTurn()
  const started = now()
  const facts = paramFacts(WARMUP_N)
  const envs = new Map<Scheme, BenchEnv>()
  const ops: Array<{ spec: OpSpec; op: PreparedOp; trace: WarmupTrace }> = []
  const roundCostUs: number[] = []
  let settled = false
  try {
    for (const spec of specs) {
      if (spec.group === 'Setup' || !opApplies(spec, facts)) continue
      let env = envs.get(spec.scheme)
      if (!env) {
        env = new BenchEnv(seal, WARMUP_N, spec.scheme, rng, now)
        envs.set(spec.scheme, env)
      }
      const factory = OP_FACTORIES[spec.id]
      if (factory)
        ops.push({ spec, op: factory({ env, rng }), trace: { op: spec.id, firstUs: 0, lastUs: 0, calls: 0 } })
    }
    // The budget starts once everything is prepared: building contexts is not warm-up.
    const start = now()
    const minimum = start + plan.policy.engineWarmupMs
    const cap = start + WARMUP_CAP_FACTOR * plan.policy.engineWarmupMs
    while (ops.length > 0) {
      const t = now()
      // A longer window than a cell's: a JIT can plateau briefly between tiers.
      settled = isStable(roundCostUs, plan.policy.warmupWindow + 2, plan.policy.warmupTolerance)
      if (t >= cap || (t >= minimum && settled)) break
      for (const entry of ops) {
        // ~1 ms of calls per op per round, so every op gets many rounds.
        const calls =
          entry.trace.calls === 0 ? 1 : Math.max(1, Math.ceil(1 / Math.max(entry.trace.lastUs / 1000, 0.01)))
        const us = (timeCalls(entry.op, calls, now) / calls) * 1000
        if (entry.trace.calls === 0) entry.trace.firstUs = us
        entry.trace.lastUs = us
        entry.trace.calls += calls
      }
      roundCostUs.push(ops.reduce((sum, entry) => sum + entry.trace.lastUs, 0))
      await nextTurn()
    }
  } finally {
    for (const entry of ops) entry.op.dispose()
    for (const env of envs.values()) env.dispose()
  }
  return { ms: now() - started, n: WARMUP_N, roundCostUs, settled, trace: ops.map((entry) => entry.trace) }
}
