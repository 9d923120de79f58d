import { describe, expect, it } from 'vitest'
import type { CellBudget, MeasurePolicy } from '../protocol/benchProtocol.ts'
import { measureCell } from './measureCell.ts'
import type { PreparedOp } from './ops/PreparedOp.ts'

/**
 * A synthetic op on a virtual clock: each call advances time by `costMs` (the first
 * `coldCalls` by `coldMs`), so the measuring rules can be checked exactly, without
 * real timings.
 */
function virtualOp(options: { costMs: number; coldCalls?: number; coldMs?: number; maxBatch?: number }) {
  let clock = 0
  let calls = 0
  const batches: number[] = []
  const op: PreparedOp = {
    maxBatch: options.maxBatch ?? Number.POSITIVE_INFINITY,
    setup: (n) => batches.push(n),
    call: () => {
      calls++
      clock += calls <= (options.coldCalls ?? 0) ? (options.coldMs ?? options.costMs) : options.costMs
    },
    teardown: () => {},
    dispose: () => {},
  }
  return { op, now: () => clock, calls: () => calls, batches }
}

const policy: MeasurePolicy = {
  iterations: 10,
  repeats: 5,
  minRepeats: 3,
  minSampleMs: 2,
  warmupWindow: 3,
  warmupTolerance: 0.1,
  warmupMinCalls: 5,
  budgets: [],
  engineWarmupMs: 0,
}
const roomy: CellBudget = { n: 4096, measureMs: 10_000, warmupMs: 10_000 }

describe('measureCell', () => {
  it('takes `repeats` samples of `iterations` calls and reports µs per call', () => {
    const v = virtualOp({ costMs: 1 })
    const timing = measureCell(v.op, policy, roomy, v.now)
    expect(timing.samplesUs).toEqual([1000, 1000, 1000, 1000, 1000])
    expect(timing.callsPerSample).toBe(10)
    expect(timing.medianUs).toBe(1000)
    expect(timing.minUs).toBe(1000)
    expect(timing.capped).toBe(false)
  })

  it('keeps warming up until the last samples agree, and records the cold call apart', () => {
    const v = virtualOp({ costMs: 1, coldCalls: 3, coldMs: 3 })
    const timing = measureCell(v.op, policy, roomy, v.now)
    expect(timing.firstCallUs).toBe(3000)
    // 1-call samples while a call costs 3 ms, then 2-call samples (≥ minSampleMs) until three agree.
    expect(timing.warmupSamplesUs).toEqual([3000, 3000, 1000, 1000, 1000])
    expect(timing.warmupCalls).toBe(8)
    expect(timing.samplesUs.every((us) => us === 1000)).toBe(true)
  })

  it('gives cheap ops enough calls per sample to last minSampleMs', () => {
    // 1/64 ms is exact in binary floating point, so the arithmetic is too.
    const v = virtualOp({ costMs: 1 / 64 })
    const timing = measureCell(v.op, policy, roomy, v.now)
    expect(timing.callsPerSample).toBe(128)
  })

  it('caps expensive cells: fewer calls per sample, then fewer samples, never below minRepeats', () => {
    const v = virtualOp({ costMs: 400 })
    const timing = measureCell(v.op, policy, { n: 32768, measureMs: 1500, warmupMs: 300 }, v.now)
    expect(timing.capped).toBe(true)
    expect(timing.callsPerSample).toBe(1)
    expect(timing.samplesUs).toHaveLength(3)
    // Warm-up budget already spent by the cold call: no further warm-up.
    expect(timing.warmupCalls).toBe(1)
  })

  it('splits a sample into batches no larger than maxBatch', () => {
    const v = virtualOp({ costMs: 1, maxBatch: 4 })
    measureCell(v.op, policy, roomy, v.now)
    expect(Math.max(...v.batches)).toBe(4)
  })
})
