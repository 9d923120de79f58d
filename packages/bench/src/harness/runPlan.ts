import { BenchError } from '../BenchError.ts'
import type { BenchPlan, HarnessCommand, HarnessCommandBody, HarnessResult } from '../protocol/benchProtocol.ts'
import { contextExists, type HarnessOptions, HarnessSession, planSpecs, SCHEME_ORDER } from './HarnessSession.ts'

export type { HarnessOptions } from './HarnessSession.ts'

/**
 * The commands that run a whole plan in one engine: warm-up, then for each n and scheme
 * (CKKS first: KeyGen rows use its context, as sealbench) open, every row, close; finish.
 * The orchestrator interleaves these lists across engines; `runPlan` runs one alone.
 */
export function planCommands(plan: BenchPlan): HarnessCommandBody[] {
  const specs = planSpecs(plan)
  const commands: HarnessCommandBody[] = [{ type: 'warmup' }]
  for (const n of plan.ns) {
    for (const scheme of SCHEME_ORDER) {
      const rows = specs.filter((spec) => spec.scheme === scheme)
      if (rows.length === 0 || !contextExists(n, scheme)) continue
      commands.push({ type: 'open', n, scheme })
      for (const spec of rows) commands.push({ type: 'cell', op: spec.id })
      commands.push({ type: 'close' })
    }
  }
  commands.push({ type: 'finish' })
  return commands
}

/** Runs a whole plan in this engine, in order (tests, and any single-engine use). */
export async function runPlan(options: HarnessOptions): Promise<HarnessResult> {
  let result: HarnessResult | undefined
  const session = new HarnessSession({
    ...options,
    emit: async (event) => {
      if (event.type === 'done') result = event.result
      await options.emit(event)
    },
  })
  let seq = 0
  for (const command of planCommands(options.plan)) await session.handle({ ...command, seq: seq++ } as HarnessCommand)
  if (!result) throw new BenchError('ENGINE_FAILED', 'the harness finished without a result')
  return result
}
