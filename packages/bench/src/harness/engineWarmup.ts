import { BenchError } from '../BenchError.ts'
import { isStable } from '../core/stats.ts'
import type { BenchPlan, HarnessResult, Scheme, WarmupTrace } from '../protocol/benchProtocol.ts'
import { BenchEnv, type Clock, type Seal } from './BenchEnv.ts'
import { paramFacts } from './benchParameters.ts'
import { timeCalls } from './measureCell.ts'
import { type OpSpec, opApplies } from './opCatalog.ts'
import { OP_FACTORIES } from './ops/opFactories.ts'
import type { PreparedOp } from './ops/PreparedOp.ts'
import type { Random } from './Random.ts'

/** n of the engine warm-up: large enough to run every op kind, small enough to be quick. */
export const WARMUP_N = 4096

/** The engine warm-up may run this many times `engineWarmupMs` while the JIT is still tiering up. */
const WARMUP_CAP_FACTOR = 4

/** Lets a browser flush its messages between rounds. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/**
 * Warms the engine's JIT before the first cell: every planned op at n=4096 in rotation,
 * for at least `engineWarmupMs` and until the cost of a round (the sum of the ops' µs per
 * call) has settled, up to 4× that long. WebKit's JavaScriptCore reaches its optimizing
 * tier only after ~100 calls, and later still on a loaded machine; the compiled WASM is
 * the same for every n, so this serves all cells.
 */
export async function warmUpEngine(
  seal: Seal,
  specs: readonly OpSpec[],
  plan: BenchPlan,
  rng: Random,
  now: Clock,
): Promise<NonNullable<HarnessResult['engineWarmup']>> {
  const started = now()
  const facts = paramFacts(WARMUP_N)
  const envs = new Map<Scheme, BenchEnv>()
  const ops: Array<{ op: PreparedOp; trace: WarmupTrace }> = []
  const roundCostUs: number[] = []
  let settled = false
  try {
    for (const spec of specs) {
      const factory = OP_FACTORIES[spec.id]
      if (spec.group === 'Setup' || !factory || !opApplies(spec, facts)) continue
      let env = envs.get(spec.scheme)
      if (!env) {
        env = new BenchEnv(seal, WARMUP_N, spec.scheme, rng, now)
        envs.set(spec.scheme, env)
      }
      let op: PreparedOp
      try {
        op = factory({ env, rng })
      } catch (error) {
        // A row this engine cannot run (he-ring's kernel where WebAssembly lacks multi-memory)
        // is left out of the warm-up; its cell reports why.
        if (error instanceof BenchError && error.code === 'ENGINE_UNAVAILABLE') continue
        throw error
      }
      ops.push({ op, trace: { op: spec.id, firstUs: 0, lastUs: 0, calls: 0 } })
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
      for (const { op, trace } of ops) {
        // ~1 ms of calls per op per round, so every op gets many rounds.
        const calls = trace.calls === 0 ? 1 : Math.max(1, Math.ceil(1 / Math.max(trace.lastUs / 1000, 0.01)))
        const us = (timeCalls(op, calls, now) / calls) * 1000
        if (trace.calls === 0) trace.firstUs = us
        trace.lastUs = us
        trace.calls += calls
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
