import { paramFacts } from '../harness/benchParameters.ts'
import { findOp, opApplies } from '../harness/opCatalog.ts'
import type { BenchPlan, CellBudget, HarnessEvent, Scheme } from '../protocol/benchProtocol.ts'
import { loadPublishedTimings, publishedKey } from './publishedTimings.ts'

/** Measured here in Node (ms): SEALContext construction per n; it dominates n=32768. */
const CONTEXT_MS: Record<number, number> = { 1024: 15, 2048: 20, 4096: 130, 8192: 600, 16384: 3500, 32768: 19000 }
/** Keys of an environment plus its sanity checks (ms, Node). */
const ENV_EXTRA_MS: Record<number, number> = { 1024: 5, 2048: 10, 4096: 60, 8192: 250, 16384: 900, 32768: 7000 }

const published = loadPublishedTimings()

/** Rough Node cost of one call (ms): the published Node figure, or a stand-in for our extra rows. */
function callMs(n: number, opId: string): number {
  const direct = published.get(publishedKey(n, opId))?.values.node
  if (direct !== undefined) return direct / 1000
  const [group = '', op = ''] = opId.split('/')
  const standIn: Record<string, string> = {
    EvaluateSubCt: 'EvaluateAddCt',
    EvaluateSubPt: 'EvaluateAddPt',
    EvaluateNegate: 'EvaluateAddCt',
    EvaluateConjugate: 'EvaluateRotate',
  }
  const sourceGroup = group === 'BGV' ? 'BFV' : group
  const source = published.get(publishedKey(n, `${sourceGroup}/${standIn[op] ?? op}`))?.values.node
  return source === undefined ? 1 : source / 1000
}

/**
 * What a plan should cost, cell by cell, from the published Node figures and the
 * measuring rules; the ETA scales it by how fast this engine has been so far.
 */
export class WorkEstimate {
  readonly totalMs: number
  readonly #plan: BenchPlan
  #doneMs = 0
  #warmupCounted = false

  constructor(plan: BenchPlan) {
    this.#plan = plan
    let total = plan.policy.engineWarmupMs > 0 ? this.#warmupMs() : 0
    for (const n of plan.ns) {
      for (const scheme of this.#schemes()) total += this.#envMs(n, scheme)
      for (const id of plan.ops) total += this.#cellMs(n, id)
    }
    this.totalMs = total
  }

  /** Work done so far, in estimate units (ms of a reference Node run). */
  get doneMs(): number {
    return this.#doneMs
  }

  /** Counts the work an event completes. */
  record(event: HarnessEvent): void {
    if (event.type === 'phase' && event.label !== 'engine warm-up' && !this.#warmupCounted) {
      this.#warmupCounted = true
      if (this.#plan.policy.engineWarmupMs > 0) this.#doneMs += this.#warmupMs()
    } else if (event.type === 'env') this.#doneMs += this.#envMs(event.env.n, event.env.scheme)
    else if (event.type === 'cell') this.#doneMs += this.#cellMs(event.cell.n, `${event.cell.group}/${event.cell.op}`)
    else if (event.type === 'skip') this.#doneMs += this.#cellMs(event.row.n, `${event.row.group}/${event.row.op}`)
  }

  #schemes(): Scheme[] {
    const schemes = new Set(this.#plan.ops.map((id) => findOp(id)?.scheme).filter((s) => s !== undefined))
    return [...schemes]
  }

  #warmupMs(): number {
    return this.#plan.policy.engineWarmupMs + this.#schemes().length * (CONTEXT_MS[4096] ?? 0)
  }

  #envMs(n: number, _scheme: Scheme): number {
    return (CONTEXT_MS[n] ?? 1000) + (ENV_EXTRA_MS[n] ?? 100)
  }

  #cellMs(n: number, id: string): number {
    const spec = findOp(id)
    if (!spec || spec.group === 'Setup' || !opApplies(spec, paramFacts(n))) return 0
    const budget: CellBudget | undefined =
      this.#plan.policy.budgets.find((b) => b.n === n) ?? this.#plan.policy.budgets.at(-1)
    if (!budget) return 0
    const { iterations, repeats, minRepeats, minSampleMs, warmupMinCalls } = this.#plan.policy
    const t = callMs(n, id)
    const warmup = Math.min(budget.warmupMs, Math.max(warmupMinCalls * t, 3 * Math.max(minSampleMs, t)))
    const measure = Math.max(
      minRepeats * t,
      Math.min(budget.measureMs, repeats * Math.max(iterations * t, minSampleMs)),
    )
    // Inputs are real encryptions made before timing: a few calls' worth.
    return t + warmup + measure + 3 * t
  }
}
