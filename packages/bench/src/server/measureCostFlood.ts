import {
  analyzeProgram,
  encodeBatch,
  encryptSymmetric,
  exportEvaluationKeys,
  getHeContext,
  KeySet,
  type ProgramInput,
  parseParams,
  withScope,
} from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import { saveSealObject } from '@sealbox/he-core/envelope'
import { ServerNode } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'
import { percentile } from '../core/stats.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import type { PreparedWorkload } from '../load/PreparedWorkload.ts'
import { PROGRAM_PARAMS } from '../load/programWorkload.ts'
import { sendWorkloadCall, type WorkloadAnswer } from '../load/sendWorkloadCall.ts'
import type { WorkloadCalls } from '../load/serverBenchProtocol.ts'
import type { CostFloodRecord, LatencySummary } from './CostFloodRecord.ts'

/** Closed-loop clients of the flooding tenant: enough to keep programs queued behind the running one. */
const FLOOD_LANES = 4
const IDLE_SEARCHES = 10
const REQUEST_TIMEOUT_MS = 120_000

function summary(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b)
  const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10)
  return {
    requests: sorted.length,
    p50: round(sorted.length === 0 ? null : percentile(sorted, 0.5)),
    p99: round(sorted.length === 0 ? null : percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? null),
  }
}

/** `exponent`-th powers `steps` times over: 2·(exponent − 1) … key switches, ≈ the cost model's maximum. */
function floodProgram(exponent: number, steps: number): ProgramInput {
  return {
    version: 1,
    inputs: [{ name: 'x', kind: 'ciphertext' }],
    steps: Array.from({ length: steps }, (_, i) => ({
      op: 'exponentiate',
      a: i === 0 ? 'x' : `p${i}`,
      exponent,
      out: `p${i + 1}`,
    })),
    outputs: [`p${steps}`],
  }
}

/**
 * "Another tenant's search latency while one tenant floods maximum-cost programs": a
 * pool server with one worker whose MAX_PROGRAM_COST is set just above the flood
 * program's cost (so every flood job is as expensive as the server allows); tenant A
 * keeps FLOOD_LANES programs in flight, tenant B sends the search workload's queries
 * one after another, first on the idle server, then during the flood. With the
 * cost-fair (deficit round-robin) queue a search waits for about one program at most.
 */
export async function measureCostFlood(options: {
  search: PreparedWorkload
  floodSeconds: number
  quick: boolean
  log?: (line: string) => void
}): Promise<CostFloodRecord> {
  const [exponent, steps] = options.quick ? [16, 1] : [64, 2]
  const program = floodProgram(exponent, steps)
  const programCost = analyzeProgram(program, parseParams(PROGRAM_PARAMS)).cost.units
  const maxProgramCost = Math.ceil(programCost) + 1
  const ctx = await getHeContext(PROGRAM_PARAMS)
  using keys = KeySet.generate(ctx, { relin: true })
  const input = withScope((scope) =>
    saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope), {
      kind: 'ciphertext',
      fingerprint: ctx.fingerprint,
      keySetId: keys.id,
      compression: 'zstd',
    }),
  )

  const node = await ServerNode.start({
    name: 'bench-cost-flood',
    env: {
      ...BENCH_SERVER_ENV,
      EXECUTOR: 'pool',
      WORKERS: '1',
      MAX_PROGRAM_COST: String(maxProgramCost),
      TENANT_COST_BUDGET: String(1e12),
    },
  })
  try {
    // The flood measures what each request meets, 503s included: no retries.
    const anonymous = new SealboxClient({ baseUrl: node.url, retry: false })
    const flooder = await anonymous.createSession()
    await flooder.client.putKeySet('flood', exportEvaluationKeys(keys))
    const searcher = await anonymous.createSession()
    if (options.search.keySet) await searcher.client.putKeySet(options.search.keySet.id, options.search.keySet.bytes)

    const timed = async (what: string, send: (signal: AbortSignal) => Promise<WorkloadAnswer>) => {
      const started = performance.now()
      try {
        const { answer, phases } = await send(AbortSignal.timeout(REQUEST_TIMEOUT_MS))
        return { ms: performance.now() - started, timing: phases, answer }
      } catch (error) {
        throw new BenchError('ENGINE_FAILED', `cost flood ${what}: ${String(error)}`, { cause: error })
      }
    }
    const floodCalls: WorkloadCalls = {
      route: 'evaluate',
      calls: [{ params: PROGRAM_PARAMS, program, inputs: { x: input }, keySet: 'flood' }],
    }
    const search = () => timed('search', (signal) => sendWorkloadCall(searcher.client, options.search.calls, 0, signal))
    const flood = () => timed('program', (signal) => sendWorkloadCall(flooder.client, floodCalls, 0, signal))

    // Warm-up: the program's context and keys in the worker, the search's JIT.
    await flood()
    await search()
    const idle: number[] = []
    for (let i = 0; i < IDLE_SEARCHES; i++) idle.push((await search()).ms)

    let flooding = true
    const programMs: number[] = []
    const lanes = Array.from({ length: FLOOD_LANES }, async () => {
      while (flooding) {
        const { timing } = await flood()
        programMs.push((timing.total ?? 0) - (timing.queue ?? 0))
      }
    })
    // Let the flood fill the queue before the first measured search.
    while (programMs.length === 0 && flooding) await new Promise((resolve) => setTimeout(resolve, 20))
    const during: number[] = []
    const queue: number[] = []
    let verified = false
    const until = performance.now() + options.floodSeconds * 1000
    try {
      do {
        const answer = await search()
        if (during.length === 0) verified = options.search.verify(0, answer.answer)
        during.push(answer.ms)
        queue.push(answer.timing.queue ?? 0)
      } while (performance.now() < until)
    } finally {
      flooding = false
      await Promise.allSettled(lanes)
    }
    const jobs = summary(programMs)
    const queued = summary(queue)
    options.log?.(
      `cost flood: search ${summary(during).p50} ms p50 during the flood (idle ${summary(idle).p50} ms), queue max ${queued.max} ms; program ${jobs.p50} ms p50`,
    )
    return {
      program: `x^${exponent}${steps > 1 ? `, ${steps} times over` : ''} (BFV n=${PROGRAM_PARAMS.polyModulusDegree})`,
      programCost: Math.round(programCost),
      maxProgramCost,
      floodLanes: FLOOD_LANES,
      floodSeconds: options.floodSeconds,
      idleSearch: summary(idle),
      floodSearch: { ...summary(during), queueP50: queued.p50, queueMax: queued.max },
      programJob: jobs,
      waitInPrograms:
        queued.max !== null && jobs.max !== null && jobs.max > 0
          ? Math.round((queued.max / jobs.max) * 100) / 100
          : null,
      verified,
    }
  } finally {
    await node.stop()
  }
}
