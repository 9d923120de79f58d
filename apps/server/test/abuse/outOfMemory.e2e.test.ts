import { getHeContext, HeError, KeySet } from '@sealbox/he-core'
import type { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, metricSum, metricsText } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode, type VictimStats, victimBaseline, victimDuring } from './abuseNode.ts'
import { encryptMemoryInput, memoryProgram, MEMORY_PARAMS as params, peakOf } from './memoryPrograms.ts'

/*
 * A real WebAssembly out-of-memory, provoked with real data (not the fault hook): the
 * worker's heap is capped at WORKER_HEAP_BYTES by the engine, the per-job estimate is
 * set above it on purpose, and a program of grown products runs into the cap. SEAL
 * throws std::bad_alloc; nothing of the instance is touched after it (node-seal
 * deadlocks on the next call), so the request is answered 507 OUT_OF_MEMORY at once,
 * the worker is replaced, and another tenant's search sent meanwhile is answered 200.
 */

const FILE = 'outOfMemory.e2e.test.ts'
const MiB = 1024 * 1024
const WORKER_HEAP = 384 * MiB
const REQUEST_TIMEOUT_MS = 120_000

describe('a real WASM out-of-memory answers 507 at once; nobody else gets 504', () => {
  let abuse: AbuseNode
  let attacker: SealboxClient
  let input: Uint8Array
  let baseline: VictimStats
  let idle: HealthStats

  beforeAll(async () => {
    abuse = await startAbuseNode('oom', {
      WORKER_HEAP_BYTES: String(WORKER_HEAP),
      WORKER_HEAP_RECYCLE_BYTES: String(256 * MiB),
      // Above the worker's cap on purpose: this test is about what happens when an estimate is not enough.
      MAX_JOB_HEAP_BYTES: String(2048 * MiB),
      MAX_POLY_DEGREE: '16384',
      MAX_PROGRAM_STEPS: '200',
      MAX_PROGRAM_COST: '1000000',
      TENANT_COST_BUDGET: '10000000',
      REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    })
    attacker = (await abuse.client.createSession()).client
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, {})
    input = encryptMemoryInput(ctx, keys, 1)
    baseline = await victimBaseline(abuse.victim)
    idle = await idleHealth(abuse.url)
  }, 300_000)

  afterAll(() => abuse?.stop())

  it('answers 507 OUT_OF_MEMORY long before the deadline, replaces the worker, and the victim’s search is answered', async () => {
    const program = memoryProgram(40)
    expect(peakOf(program)).toBeGreaterThan(WORKER_HEAP)
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
      `out-of-memory answered in ${elapsedMs.toFixed(0)} ms (server total ${timing.total ?? '?'} ms); victim p50 ${baseline.p50} → ${attack.victim.p50} ms, max ${attack.victim.max} ms over ${attack.victim.searches} searches`,
    )
    expect(attack.result).toBeInstanceOf(HeError)
    expect([error.code, error.details?.status]).toEqual(['OUT_OF_MEMORY', 507])
    // Not the deadline's 504: the worker answered as soon as SEAL threw. (The time is the
    // job's own work until the cap, and the victim's searches queued with it; a hung worker
    // would answer only at REQUEST_TIMEOUT_MS.)
    expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS / 2)
    // Every victim search was answered 200 with the right scores (victimDuring checks them): no 504.
    expect(attack.victim.searches).toBeGreaterThanOrEqual(1)
    const metrics = await metricsText(abuse.url)
    expect(metricSum(metrics, 'sealbox_worker_replacements_total')).toBeGreaterThan(replacedBefore)
    expect(metrics).toMatch(/sealbox_worker_replacements_total\{[^}]*reason="outOfMemory"[^}]*\} [1-9]/)
    // The replacement serves: the victim searches again, and the heap it reports is a fresh worker's.
    await abuse.victim.search()
    expect(metricSum(await metricsText(abuse.url), 'sealbox_worker_wasm_heap_bytes')).toBeLessThan(WORKER_HEAP)
    expectHealthy({
      attack: 'memory',
      test: `${FILE} › answers 507 OUT_OF_MEMORY long before the deadline`,
      answer: `507 OUT_OF_MEMORY in ${elapsedMs.toFixed(0)} ms`,
      during: health,
      idle,
    })
  }, 300_000)
})
