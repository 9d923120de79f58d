import { liveSealHandles } from '@sealbox/he-core/testing'
import { BenchError } from '../BenchError.ts'
import type {
  BenchPlan,
  CellBudget,
  CellResult,
  EnvReport,
  HarnessCommand,
  HarnessEvent,
  HarnessResult,
  RuntimeFacts,
  Scheme,
  SkippedRow,
} from '../protocol/benchProtocol.ts'
import { BenchEnv, type Clock, type Seal } from './BenchEnv.ts'
import { SEARCH_BENCH_PARAMS } from './benchParameters.ts'
import { describeError } from './describeError.ts'
import { nextTurn, warmUpEngine } from './engineWarmup.ts'
import { measureCell, timerResolutionUs } from './measureCell.ts'
import { findOp, type OpSpec, opApplies, skipReason } from './opCatalog.ts'
import { OP_FACTORIES } from './ops/opFactories.ts'
import type { PreparedOp } from './ops/PreparedOp.ts'
import { Random } from './Random.ts'
import { runSanityChecks } from './sanityChecks.ts'

/** What an engine-specific entry (Node child, browser worker) hands the shared harness. */
export interface HarnessOptions {
  seal: Seal
  plan: BenchPlan
  /** `performance.now` of the engine. */
  now: Clock
  /** Receives progress; awaited, so a browser can post it before the next step. */
  emit: (event: HarnessEvent) => void | Promise<void>
  /** Facts only the engine knows (user agent, isolation). */
  runtime?: Omit<RuntimeFacts, 'timerResolutionUs' | 'heapBytesAfter'>
  /** WASM heap size, when the engine can see it. */
  heapBytes?: () => number | undefined
}

/** Schemes in execution order: CKKS first because KeyGen rows use its context (as sealbench). */
export const SCHEME_ORDER: readonly Scheme[] = ['ckks', 'bfv', 'bgv', 'bgv-search']

/** Whether the (n, scheme) context exists: the search's parameter set is one n only. */
export function contextExists(n: number, scheme: Scheme): boolean {
  return scheme !== 'bgv-search' || n === SEARCH_BENCH_PARAMS.n
}

/**
 * The harness of one engine, driven step by step (`warmup`, `open` an (n, scheme)
 * environment, measure a `cell`, `close`, `finish`), so an orchestrator can have every
 * engine measure the same cell within seconds of the others. The same code runs in
 * Node, Chromium, Firefox and WebKit; one environment is alive at a time and every SEAL
 * object is deleted before the next.
 */
export class HarnessSession {
  readonly #options: HarnessOptions
  readonly #rng: Random
  readonly #started: number
  /** SEAL handles alive before the run: what is alive beyond them at the end leaked. */
  readonly #handlesAtStart: number
  readonly #timerUs: number
  readonly #envs: EnvReport[] = []
  readonly #cells: CellResult[] = []
  readonly #skipped: SkippedRow[] = []
  #engineWarmup: HarnessResult['engineWarmup']
  #env: BenchEnv | undefined
  /** Why the rows of the current (n, scheme) are skipped (limit or failed context). */
  #closedReason: string | undefined
  #n = 0

  constructor(options: HarnessOptions) {
    this.#options = options
    this.#rng = new Random(options.plan.seed)
    this.#started = options.now()
    this.#handlesAtStart = liveSealHandles()
    this.#timerUs = timerResolutionUs(options.now)
  }

  /** Runs one command and acknowledges it. */
  async handle(command: HarnessCommand): Promise<void> {
    switch (command.type) {
      case 'warmup':
        await this.warmUp()
        break
      case 'open':
        await this.open(command.n, command.scheme)
        break
      case 'cell':
        await this.cell(command.op)
        break
      case 'close':
        this.close()
        break
      case 'finish':
        await this.finish()
        break
      default: {
        const unreachable: never = command
        throw new BenchError('INTERNAL', `unknown command ${JSON.stringify(unreachable)}`)
      }
    }
    await this.#options.emit({ type: 'ack', seq: command.seq })
  }

  /** The engine warm-up over every planned op at n=4096 (skipped when `engineWarmupMs` is 0). */
  async warmUp(): Promise<void> {
    const { plan, seal, now, emit } = this.#options
    if (plan.policy.engineWarmupMs <= 0) return
    await emit({ type: 'phase', n: 4096, label: 'engine warm-up' })
    await nextTurn()
    this.#engineWarmup = await warmUpEngine(seal, planSpecs(plan), plan, this.#rng, now)
  }

  /** Builds the (n, scheme) environment, checks it computes, and reports it. */
  async open(n: number, scheme: Scheme): Promise<void> {
    const { plan, seal, now, emit } = this.#options
    this.close()
    this.#n = n
    const limit = plan.limits?.find((l) => l.scheme === scheme && n > l.maxN)
    if (limit) {
      // The whole context is out of this run: its rows are skipped without paying for it.
      this.#closedReason = limit.reason
      return
    }
    await emit({ type: 'phase', n, label: `${scheme.toUpperCase()} context and keys` })
    await nextTurn()
    try {
      this.#env = new BenchEnv(seal, n, scheme, this.#rng, now)
    } catch (error) {
      this.#closedReason = `failed to build the context: ${describeError(error)}`
      return
    }
    const report = describeEnv(this.#env)
    this.#envs.push(report)
    await emit({ type: 'env', env: report })
  }

  /** Measures one row in the open environment (or reports why it has no cell). */
  async cell(opId: string): Promise<void> {
    const { plan, now, emit } = this.#options
    const spec = findOp(opId)
    if (!spec) throw new BenchError('INTERNAL', `unknown op ${opId}`)
    const env = this.#env
    if (!env || env.scheme !== spec.scheme) {
      await this.#skip({ n: this.#n, group: spec.group, op: spec.op, reason: this.#closedReason ?? 'no context open' })
      return
    }
    if (spec.group === 'Setup') return this.#record(setupCell(env, spec))
    if (!opApplies(spec, { usingKeyswitching: env.usingKeyswitching, coeffModulusCount: env.dataLevelPrimes })) {
      await this.#skip({ n: env.n, group: spec.group, op: spec.op, reason: skipReason(spec) })
      return
    }
    await emit({ type: 'phase', n: env.n, label: spec.id })
    await nextTurn()
    const cell = runCell(env, spec, plan, this.#rng, now)
    if ('reason' in cell) await this.#skip(cell)
    else await this.#record(cell)
  }

  /** Deletes the open environment. */
  close(): void {
    this.#env?.dispose()
    this.#env = undefined
    this.#closedReason = undefined
  }

  /** Closes everything and sends `done` with the whole result. */
  async finish(): Promise<HarnessResult> {
    this.close()
    const heapBytesAfter = this.#options.heapBytes?.()
    const result: HarnessResult = {
      runtime: {
        ...this.#options.runtime,
        timerResolutionUs: this.#timerUs,
        ...(heapBytesAfter === undefined ? {} : { heapBytesAfter }),
      },
      envs: this.#envs,
      cells: this.#cells,
      skipped: this.#skipped,
      ...(this.#engineWarmup ? { engineWarmup: this.#engineWarmup } : {}),
      leakedHandles: liveSealHandles() - this.#handlesAtStart,
      wallMs: this.#options.now() - this.#started,
    }
    await this.#options.emit({ type: 'done', result })
    return result
  }

  async #record(cell: CellResult): Promise<void> {
    this.#cells.push(cell)
    await this.#options.emit({ type: 'cell', cell })
  }

  async #skip(row: SkippedRow): Promise<void> {
    this.#skipped.push(row)
    await this.#options.emit({ type: 'skip', row })
  }
}

/** The planned rows, in plan order. */
export function planSpecs(plan: BenchPlan): OpSpec[] {
  return plan.ops.map((id) => {
    const spec = findOp(id)
    if (!spec) throw new BenchError('INTERNAL', `unknown op ${id}`)
    return spec
  })
}

function budgetFor(plan: BenchPlan, n: number): CellBudget {
  const budgets = plan.policy.budgets
  const found = budgets.find((b) => b.n === n) ?? budgets[budgets.length - 1]
  if (!found) throw new BenchError('INTERNAL', 'the measure policy has no budgets')
  return found
}

function describeEnv(env: BenchEnv): EnvReport {
  // Multiply/rotate checks cost seconds at n ≥ 16384; encrypt/decrypt/add still run there.
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
    if (!factory) throw new BenchError('INTERNAL', `no implementation for ${spec.id}`)
    op = factory({ env, rng })
    const timing = measureCell(op, plan.policy, budgetFor(plan, env.n), now)
    return { n: env.n, logQ: env.logQ, group: spec.group, op: spec.op, ...timing, wallMs: now() - t0 }
  } catch (error) {
    const unavailable = error instanceof BenchError && error.code === 'ENGINE_UNAVAILABLE'
    return {
      n: env.n,
      group: spec.group,
      op: spec.op,
      reason: `${unavailable ? 'n/a' : 'failed'}: ${describeError(error)}`,
    }
  } finally {
    op?.dispose()
  }
}
