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
 * What a plan should cost, cell by cell and context by context, from the published Node
 * figures and the measuring rules. The ETA scales the two kinds separately by how fast
 * this engine has been so far: native SEAL builds an n=32768 context 50× faster than
 * WASM, while its ops are only 2–5× faster.
 */
export class WorkEstimate {
  readonly #plan: BenchPlan
  readonly #totalCells: number
  readonly #totalEnvs: number
  #doneCells = 0
  #doneEnvs = 0
  /** Measured time spent building environments (context + keys), ms. */
  #envActualMs = 0
  #warmupCounted = false

  constructor(plan: BenchPlan) {
    this.#plan = plan
    let cells = plan.policy.engineWarmupMs > 0 ? this.#warmupMs() : 0
    let envs = 0
    for (const n of plan.ns) {
      for (const scheme of this.#schemes()) if (!this.#limited(n, scheme)) envs += this.#envMs(n, scheme)
      for (const id of plan.ops) cells += this.#cellMs(n, id)
    }
    this.#totalCells = cells
    this.#totalEnvs = envs
  }

  /** Counts the work an event completes. */
  record(event: HarnessEvent): void {
    if (event.type === 'phase' && event.label !== 'engine warm-up' && !this.#warmupCounted) {
      this.#warmupCounted = true
      if (this.#plan.policy.engineWarmupMs > 0) this.#doneCells += this.#warmupMs()
    } else if (event.type === 'env') {
      this.#doneEnvs += this.#envMs(event.env.n, event.env.scheme)
      this.#envActualMs += event.env.contextMs + event.env.keysMs
    } else if (event.type === 'cell')
      this.#doneCells += this.#cellMs(event.cell.n, `${event.cell.group}/${event.cell.op}`)
    else if (event.type === 'skip') this.#doneCells += this.#cellMs(event.row.n, `${event.row.group}/${event.row.op}`)
  }

  /** Remaining time given the time spent so far, or undefined before any work is done. */
  remainingMs(elapsedMs: number): number | undefined {
    if (this.#doneCells <= 0) return undefined
    const cellFactor = Math.max(0, elapsedMs - this.#envActualMs) / this.#doneCells
    const envFactor = this.#doneEnvs > 0 ? this.#envActualMs / this.#doneEnvs : cellFactor
    return (
      Math.max(0, this.#totalCells - this.#doneCells) * cellFactor +
      Math.max(0, this.#totalEnvs - this.#doneEnvs) * envFactor
    )
  }

  /** Reference-Node milliseconds the whole plan should take (for time-outs). */
  get totalMs(): number {
    return this.#totalCells + this.#totalEnvs
  }

  #schemes(): Scheme[] {
    const schemes = new Set(this.#plan.ops.map((id) => findOp(id)?.scheme).filter((s) => s !== undefined))
    return [...schemes]
  }

  #limited(n: number, scheme: Scheme): boolean {
    return this.#plan.limits?.some((limit) => limit.scheme === scheme && n > limit.maxN) ?? false
  }

  #warmupMs(): number {
    return this.#plan.policy.engineWarmupMs + this.#schemes().length * (CONTEXT_MS[4096] ?? 0)
  }

  #envMs(n: number, _scheme: Scheme): number {
    return (CONTEXT_MS[n] ?? 1000) + (ENV_EXTRA_MS[n] ?? 100)
  }

  #cellMs(n: number, id: string): number {
    const spec = findOp(id)
    if (!spec || spec.group === 'Setup' || !opApplies(spec, paramFacts(n)) || this.#limited(n, spec.scheme)) return 0
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
