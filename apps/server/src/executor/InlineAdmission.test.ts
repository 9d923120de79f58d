import { COST_UNIT_MS, HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { InlineAdmission } from './InlineAdmission.ts'
import type { WorkerJob, WorkerReply } from './jobMessages.ts'

const limits = { INLINE_MAX_JOB_MS: 500, INLINE_BUDGET_MS: 2000, INLINE_BUDGET_WINDOW_MS: 10_000 }

function program(label: string): WorkerJob {
  return {
    type: 'evaluate',
    params: { scheme: 'bgv', polyModulusDegree: 8192, plainModulus: { batchingBits: 20 } },
    program: {
      version: 1,
      inputs: [{ name: 'x', kind: 'ciphertext' }],
      steps: [{ op: 'multiply', a: 'x', b: 'x', out: label }],
      outputs: [label],
    },
    inputs: {},
  } as unknown as WorkerJob
}

function reply(runMs: number, failed = false): WorkerReply {
  return {
    result: failed ? { type: 'failed', error: { code: 'SEAL_ERROR', message: 'x' } } : { type: 'faultSurvived' },
    runMs,
  } as unknown as WorkerReply
}

function refusal(fn: () => void): HeError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  throw new Error('expected a refusal')
}

describe('InlineAdmission', () => {
  it('predicts an unmeasured program at 10× the model’s ms per unit, then at what jobs like it took on any executor', () => {
    const admission = new InlineAdmission(limits, () => 0)
    const job = program('r')
    // 300 units × 10 × COST_UNIT_MS: refused before it ever runs inline.
    const unseenMs = 300 * 10 * COST_UNIT_MS
    expect(unseenMs).toBeGreaterThan(500)
    const unseen = refusal(() => admission.admit('127.0.0.1', job, 300))
    expect(unseen.code).toBe('LIMIT_EXCEEDED')
    expect(unseen.message).toContain(`about ${Math.round(unseenMs)} ms`)
    expect(unseen.details).toMatchObject({ setting: 'INLINE_MAX_JOB_MS', limit: 500 })
    // Measured on the pool at 0.6 ms per unit: 180 ms, admitted.
    admission.observe(job, 300, reply(180))
    expect(admission.predictMs(300, 'unknown shape')).toBeCloseTo(unseenMs, 6)
    admission.admit('127.0.0.1', job, 300)
    // A failed run says nothing of the speed.
    admission.observe(job, 300, reply(5000, true))
    admission.admit('127.0.0.1', job, 300)
  })

  it('refuses a queued job at its start once a job like it was measured too slow', () => {
    const admission = new InlineAdmission(limits, () => 0)
    const job = program('q')
    admission.observe(job, 20, reply(100))
    const first = admission.admit('127.0.0.1', job, 20)
    const second = admission.admit('127.0.0.1', job, 20)
    first.beforeRun()
    // The first really took 800 ms (40 ms per unit): the second, still queued, is now refused.
    first.afterRun(reply(800))
    expect(refusal(() => second.beforeRun()).code).toBe('LIMIT_EXCEEDED')
  })

  it('keeps a budget of inline milliseconds per address, charged what the jobs really took', () => {
    let now = 0
    const admission = new InlineAdmission(limits, () => now)
    const job = program('b')
    admission.observe(job, 10, reply(40))
    // 4 ms per unit: each job predicted 40 ms but takes 400 (its shape was measured on an idle pool).
    for (let i = 0; i < 5; i++) {
      const ticket = admission.admit('127.0.0.1', job, 10)
      ticket.beforeRun()
      ticket.afterRun(reply(400))
      admission.observe(job, 10, reply(40))
    }
    const limited = refusal(() => admission.admit('127.0.0.1', program('other'), 1))
    expect(limited.code).toBe('RATE_LIMITED')
    expect(limited.message).toContain('2,000 ms of the inline executor per 10 s (INLINE_BUDGET_MS')
    expect(Number(limited.details?.retryAfterSeconds)).toBeGreaterThanOrEqual(1)
    // Another address has its own; this one's comes back over the window.
    admission.admit('127.0.0.2', job, 10)
    now = 10_000
    admission.admit('127.0.0.1', job, 10)
  })

  it('adds what the executor has yet to build or load for the job, checked again just before it runs', () => {
    const admission = new InlineAdmission(limits, () => 0)
    const job = program('c')
    const coldRate = 2 * COST_UNIT_MS
    // Measured warm at 0.3 ms per unit: 30 units is 9 ms.
    admission.observe(job, 30, reply(9))
    // Its parameters' context not built yet (1,800 units, about n = 8192): 9 ms plus 1,800
    // units at twice the model's rate (the recent jobs were faster), past 500 ms: refused.
    expect(9 + 1800 * coldRate).toBeGreaterThan(500)
    const cold = refusal(() => admission.admit('127.0.0.1', job, 30, () => 1800))
    expect(cold.code).toBe('LIMIT_EXCEEDED')
    expect(cold.message).toContain("building its parameters' context or loading its key set first")
    expect(cold.details).toMatchObject({ coldUnits: 1800, setting: 'INLINE_MAX_JOB_MS' })
    // A smaller build fits; by the time the job runs another job has built it, so the run
    // is warm (nothing cold is asked again) and teaches 0.3 ms per unit, as before.
    let pending = 600
    const warm = admission.admit('127.0.0.1', job, 30, () => pending)
    pending = 0
    warm.beforeRun()
    warm.afterRun(reply(9))
    // A cold run is learned per unit of all it did: 630 units in 1,260 ms is 2 ms per unit,
    // so the same program, warm, is now predicted at 60 ms, and with a 600-unit build at
    // that recent rate (1.2 s) refused.
    const first = admission.admit('127.0.0.2', job, 30, () => 600)
    first.beforeRun()
    first.afterRun(reply(1260))
    admission.admit('127.0.0.2', job, 30)
    expect(refusal(() => admission.admit('127.0.0.2', job, 30, () => 600)).code).toBe('LIMIT_EXCEEDED')
  })

  it('prices cold work at the machine’s recent rate, not at the prior of a program never measured', () => {
    const admission = new InlineAdmission(limits, () => 0)
    // A new program (10 units at 10× the model's rate: 22 ms) at parameters whose context
    // is 370 units to build (n = 4096): at twice the model's rate 163 ms, admitted.
    admission.admit('127.0.0.1', program('n'), 10, () => 370)
    // Recent jobs ran at 2 ms per unit (a loaded machine): the same build is 740 ms, refused.
    admission.observe(program('slow'), 100, reply(200))
    expect(refusal(() => admission.admit('127.0.0.1', program('n'), 10, () => 370)).code).toBe('LIMIT_EXCEEDED')
  })
})
