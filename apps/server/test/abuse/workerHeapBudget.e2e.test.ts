import {
  decodeBatch,
  decrypt,
  getHeContext,
  type HeContext,
  KeySet,
  type ProgramInput,
  parseProgram,
  programCost,
  withScope,
} from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { loadSealObject } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { metricSum, metricsText } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode, victimDuring } from './abuseNode.ts'
import { encryptMemoryInput, heapFillProgram, MEMORY_PARAMS as params } from './memoryPrograms.ts'

/*
 * The scheduler counts a job's estimated peak heap against the heap its worker reported
 * after its last job, within WORKER_HEAP_BYTES. On one real pool worker whose recycle
 * threshold is set high (so a grown worker is kept): a program grows the worker's heap;
 * a small program still fits on top and runs there; a program whose estimate fits a
 * fresh worker but not the grown one is not run there as is — the worker is replaced
 * first (reason `heapBudget`), and the program runs on the fresh one, answered right.
 */

const MiB = 2 ** 20
const BUDGET = 1024 * MiB
/**
 * Far past the programs' time: the deadline is not what this file tests. Their admission
 * estimates follow the measured speed of earlier jobs, and on a machine busy with other work
 * a 120 s deadline refused the first one (290 s estimated: a 504, not started) before the
 * worker was grown. A hang still ends at the test's own timeout.
 */
const REQUEST_TIMEOUT_MS = 1_800_000
/** Steps a program may have here: a heap-filling program takes two per 5 MiB sum. */
const MAX_STEPS = 1000

/** The cost model's peak heap of a program at MEMORY_PARAMS (what the server admits it with). */
function peakOf(program: ProgramInput): number {
  const parsed = parseProgram(program, { limits: { maxSteps: MAX_STEPS } }).program
  return programCost(parsed, { scheme: params.scheme, polyModulusDegree: params.polyModulusDegree }).peakHeapBytes
}

/** The fewest heap-filling sums whose estimated peak reaches `bytes`. */
function sumsForPeak(bytes: number): number {
  let sums = 2
  while (peakOf(heapFillProgram(sums)) < bytes) sums++
  return sums
}

describe('a job runs on a worker only when its estimated peak fits on top of the worker’s heap', () => {
  let abuse: AbuseNode
  let client: SealboxClient
  let ctx: HeContext
  let keys: KeySet
  let input: Uint8Array
  /** The heap a worker reports before any program has grown it. */
  let freshHeap: number

  beforeAll(async () => {
    abuse = await startAbuseNode('heapbudget', {
      WORKER_HEAP_BYTES: String(BUDGET),
      // Kept, not replaced after its reply: the budget alone decides what runs on it.
      WORKER_HEAP_RECYCLE_BYTES: String(BUDGET - 64 * MiB),
      MAX_JOB_HEAP_BYTES: String(BUDGET - 64 * MiB),
      MAX_POLY_DEGREE: '16384',
      MAX_PROGRAM_STEPS: String(MAX_STEPS),
      MAX_PROGRAM_COST: '1000000',
      TENANT_COST_BUDGET: '10000000',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    })
    client = (await abuse.client.createSession()).client
    ctx = await getHeContext(params)
    keys = KeySet.generate(ctx, {})
    input = encryptMemoryInput(ctx, keys, 1)
    freshHeap = metricSum(await metricsText(abuse.url), 'sealbox_worker_wasm_heap_bytes')
  }, 300_000)

  afterAll(async () => {
    keys?.dispose()
    await abuse?.stop()
  })

  /**
   * Runs heapFillProgram(`sums`) on x and checks its output against the plaintext oracle:
   * each sum is x⁴ + x⁴, and the output adds them all, so every slot is 2 · sums · x⁴ mod t.
   */
  async function evaluateChecked(sums: number): Promise<void> {
    const program = heapFillProgram(sums)
    const result = await client.evaluate({ params, program, inputs: { x: input } })
    const [name] = program.outputs
    const t = ctx.plainModulus as bigint
    const centred = (value: bigint) => {
      const r = ((value % t) + t) % t
      return r > (t - 1n) / 2n ? r - t : r
    }
    const x = [1n, 2n, 3n]
    const expected = Array.from({ length: params.polyModulusDegree }, (_, i) =>
      centred(2n * BigInt(sums) * (x[i] ?? 0n) ** 4n),
    )
    const slots = withScope((scope) => {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      loadSealObject(ciphertext, ctx, result.outputs[name as string] as Uint8Array, {
        kind: 'ciphertext',
        keySetId: keys.id,
      })
      return decodeBatch(ctx, decrypt(keys, ciphertext, scope))
    })
    expect(slots.map(String)).toEqual(expected.map(String))
  }

  const replacements = async (reason?: string) => {
    const text = await metricsText(abuse.url)
    if (reason === undefined) return metricSum(text, 'sealbox_worker_replacements_total')
    const line = text
      .split('\n')
      .find((l) => l.startsWith('sealbox_worker_replacements_total{') && l.includes(`reason="${reason}"`))
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
  }
  const heap = async () => metricSum(await metricsText(abuse.url), 'sealbox_worker_wasm_heap_bytes')

  it('grows the worker, runs a small job on it, and replaces it before a job that only a fresh worker can hold', async () => {
    expect(freshHeap).toBeGreaterThan(0)
    expect(freshHeap).toBeLessThan(BUDGET / 4)
    // 1. A program estimated at ~45 % of the budget grows the worker; it is kept.
    await evaluateChecked(sumsForPeak(0.45 * BUDGET))
    const grown = await heap()
    expect(grown).toBeGreaterThan(freshHeap + 128 * MiB)
    expect(await replacements()).toBe(0)

    // 2. A small program fits on top of the grown heap: it runs there, nothing is replaced.
    expect(grown + peakOf(heapFillProgram(4))).toBeLessThanOrEqual(BUDGET)
    await evaluateChecked(4)
    expect(await replacements()).toBe(0)

    // 3. A program that a fresh worker can hold but the grown one cannot (estimate + heap > budget).
    const grownNow = await heap()
    const sums = sumsForPeak((BUDGET - grownNow + (BUDGET - freshHeap)) / 2)
    const peak = peakOf(heapFillProgram(sums))
    expect(grownNow + peak).toBeGreaterThan(BUDGET)
    expect(freshHeap + peak).toBeLessThanOrEqual(BUDGET)
    const { result, victim } = await victimDuring(abuse.victim, () => evaluateChecked(sums), { maxSearches: 4 })
    expect(result).toBeUndefined()
    // Replaced first, for the budget (not after an out-of-memory), and answered on the fresh worker.
    expect(await replacements('heapBudget')).toBe(1)
    expect(await replacements()).toBe(1)
    expect(victim.failed).toEqual({})
    const after = await heap()
    expect(after).toBeLessThanOrEqual(BUDGET)
    console.log(
      `worker heap: fresh ${(freshHeap / MiB).toFixed(0)} MiB, grown ${(grownNow / MiB).toFixed(0)} MiB; a job estimated at ${(peak / MiB).toFixed(0)} MiB ran after the worker was replaced (heap then ${(after / MiB).toFixed(0)} MiB of ${BUDGET / MiB})`,
    )
  }, 300_000)
})
