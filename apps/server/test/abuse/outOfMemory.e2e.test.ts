import { getHeContext, HeError, KeySet } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, metricSum, metricsText } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode, type VictimStats, victimBaseline, victimDuring } from './abuseNode.ts'
import { encryptMemoryInput, heapFillProgram, MEMORY_PARAMS as params, peakOf } from './memoryPrograms.ts'

/*
 * A real WebAssembly out-of-memory, provoked with real data (not the fault hook): the
 * worker's heap is capped at WORKER_HEAP_BYTES by the engine, the per-job estimate is
 * set above it on purpose, and a program that keeps a hundred 5 MiB sums alive runs
 * into the cap. SEAL throws std::bad_alloc; nothing of the instance is touched after it
 * (node-seal deadlocks on the next call), so the request is answered 507 OUT_OF_MEMORY
 * as soon as the allocation fails, the worker is replaced after the reply (off the
 * request's path), and another tenant's search sent meanwhile is answered 200.
 *
 * Where such an answer's time goes: building the context of new parameters (about 2 s of
 * CPU for BGV n = 16384 with nine primes, once per worker), loading the inputs, and the
 * job's own work until the heap is full — the failing allocation itself answers at once.
 * The test warms the context and times the same program at a size that fits (the
 * baseline): the attack does the baseline's work a few times over before the cap, so it
 * must be answered within a small multiple of the baseline, far below the deadline.
 */

const FILE = 'outOfMemory.e2e.test.ts'
const MiB = 1024 * 1024
const WORKER_HEAP = 384 * MiB
/**
 * Far past the attack's time: the bounds below are the baseline's multiples. The admission
 * estimate of these programs follows the measured speed of earlier jobs, and on a machine
 * busy with other work it passed two minutes (135 s against a 120 s deadline: a 504 before
 * the job ran, so the out-of-memory case was never reached).
 */
const REQUEST_TIMEOUT_MS = 1_800_000
/** Sums the baseline keeps alive (about 80 MiB), and the attack's (about 600 MiB: the cap is reached after ~60). */
const BASELINE_SUMS = 16
const ATTACK_SUMS = 120
/**
 * The attack runs its sums until the cap (about 4× the baseline's, then fails) against one
 * baseline request: answered within this many baselines, or it waited for something else.
 */
const BASELINE_FACTOR = 10

describe('a real WASM out-of-memory answers 507 at once; nobody else gets 504', () => {
  let abuse: AbuseNode
  let attacker: SealboxClient
  let input: Uint8Array
  let baseline: VictimStats
  let idle: HealthStats
  let baselineMs = Number.NaN
  let baselineTiming: Record<string, number> = {}
  let warmMs = Number.NaN

  beforeAll(async () => {
    const starting = performance.now()
    abuse = await startAbuseNode('oom', {
      WORKER_HEAP_BYTES: String(WORKER_HEAP),
      WORKER_HEAP_RECYCLE_BYTES: String(256 * MiB),
      // Above the worker's cap on purpose: this test is about what happens when an estimate is not enough.
      MAX_JOB_HEAP_BYTES: String(2048 * MiB),
      MAX_POLY_DEGREE: '16384',
      MAX_PROGRAM_STEPS: '256',
      MAX_PROGRAM_COST: '1000000',
      TENANT_COST_BUDGET: '10000000',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    })
    // Start-up, a worker's warm-up and the victim's first search: more than a replacement's warm-up.
    warmMs = performance.now() - starting
    attacker = (await abuse.client.createSession()).client
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, {})
    input = encryptMemoryInput(ctx, keys, 1)
    // The first request builds the context (once per worker); the second is the baseline.
    const fits = { params, program: heapFillProgram(BASELINE_SUMS), inputs: { x: input } }
    await attacker.evaluate(fits)
    const started = performance.now()
    baselineTiming = (await attacker.evaluate(fits)).timing
    baselineMs = performance.now() - started
    baseline = await victimBaseline(abuse.victim)
    idle = await idleHealth(abuse.url)
  }, 300_000)

  afterAll(() => abuse?.stop())

  it('answers 507 OUT_OF_MEMORY within a few baselines, replaces the worker, and the victim’s search is answered', async () => {
    const program = heapFillProgram(ATTACK_SUMS)
    expect(peakOf(program)).toBeGreaterThan(WORKER_HEAP)
    expect(peakOf(heapFillProgram(BASELINE_SUMS))).toBeLessThan(WORKER_HEAP / 2)
    const replacedBefore = metricSum(await metricsText(abuse.url), 'sealbox_worker_replacements_total')
    let elapsedMs = Number.NaN
    const { result: attack, health } = await duringAttack(abuse.url, () =>
      victimDuring(abuse.victim, async () => {
        const started = performance.now()
        try {
          await attacker.evaluate({ params, program, inputs: { x: input } })
          return undefined
        } catch (error) {
          return error
        } finally {
          elapsedMs = performance.now() - started
        }
      }),
    )
    const error = attack.result as HeError
    const timing = (error.details?.timing ?? {}) as Record<string, number>
    console.log(
      `out-of-memory answered in ${elapsedMs.toFixed(0)} ms (server total ${timing.total ?? '?'} ms, compute ${timing.compute ?? '?'} ms; baseline ${baselineMs.toFixed(0)} ms, ${JSON.stringify(baselineTiming)}); victim p50 ${baseline.p50} → ${attack.victim.p50} ms, max ${attack.victim.max} ms over ${attack.victim.searches} searches`,
    )
    expect(attack.result).toBeInstanceOf(HeError)
    expect([error.code, error.details?.status]).toEqual(['OUT_OF_MEMORY', 507])
    // Not the deadline's 504: the worker answered as soon as SEAL threw. The time is the
    // job's own work until the cap (and a victim search queued before it); a hung worker
    // would answer only at REQUEST_TIMEOUT_MS.
    expect(elapsedMs).toBeLessThan(BASELINE_FACTOR * baselineMs + baseline.p50 * 4)
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS / 4)
    // Every victim search was answered 200 with the right scores (victimDuring checks them;
    // its client never retries, so a 502, 503 or 504 would be counted here): no 504.
    expect(attack.victim.searches).toBeGreaterThanOrEqual(1)
    expect(attack.victim.failed).toEqual({})
    // With one worker the victim waits behind the attacker's job until it fails, then for
    // the replacement to warm up (less than the server's start took): never for a hung
    // worker until the deadline. A generous bound from this run's own numbers.
    expect(attack.victim.max).toBeLessThan(2 * elapsedMs + 2 * warmMs + 10 * baseline.max)
    const metrics = await metricsText(abuse.url)
    expect(metricSum(metrics, 'sealbox_worker_replacements_total')).toBeGreaterThan(replacedBefore)
    expect(metrics).toMatch(/sealbox_worker_replacements_total\{[^}]*reason="outOfMemory"[^}]*\} [1-9]/)
    // The replacement serves: the victim searches again, and the heap it reports is a fresh worker's.
    await abuse.victim.search()
    expect(metricSum(await metricsText(abuse.url), 'sealbox_worker_wasm_heap_bytes')).toBeLessThan(WORKER_HEAP)
    expectHealthy({
      attack: 'memory',
      test: `${FILE} › answers 507 OUT_OF_MEMORY within a few baselines`,
      answer: `507 OUT_OF_MEMORY in ${elapsedMs.toFixed(0)} ms; victim p50 ${baseline.p50} → ${attack.victim.p50} ms, max ${attack.victim.max} ms (bound ${Math.round(2 * elapsedMs + 2 * warmMs + 10 * baseline.max)}), no failure`,
      during: health,
      idle,
    })
  }, 300_000)
})
