import { liveSealHandles } from '@sealbox/he-core/testing'
import SEAL from 'node-seal/throws'
import { beforeAll, describe, expect, it } from 'vitest'
import type { BenchPlan, HarnessEvent } from '../protocol/benchProtocol.ts'
import type { Seal } from './BenchEnv.ts'
import { HarnessSession } from './HarnessSession.ts'
import { OP_CATALOG } from './opCatalog.ts'
import { planCommands, runPlan } from './runPlan.ts'

let seal: Seal

beforeAll(async () => {
  seal = await SEAL()
})

function plan(ns: number[], ops: string[]): BenchPlan {
  return {
    runId: 'test',
    ns,
    ops,
    seed: 7,
    policy: {
      iterations: 2,
      repeats: 2,
      minRepeats: 2,
      minSampleMs: 0.5,
      warmupWindow: 2,
      warmupTolerance: 0.5,
      warmupMinCalls: 1,
      budgets: ns.map((n) => ({ n, measureMs: 50, warmupMs: 10 })),
      engineWarmupMs: 0,
    },
  }
}

async function run(p: BenchPlan) {
  const events: HarnessEvent[] = []
  const result = await runPlan({ seal, plan: p, now: () => performance.now(), emit: (e) => void events.push(e) })
  return { result, events }
}

describe('runPlan (real SEAL, n=4096)', () => {
  const ops = [
    'KeyGen/Relin',
    'KeyGen/Galois',
    'BFV/EncryptSecret',
    'BFV/EvaluateRelinInplace',
    'BFV/EvaluateRotateCols',
    'CKKS/EvaluateRescaleInplace',
    'CKKS/EvaluateConjugate',
    'BGV/EvaluateModSwitchInplace',
    'BGV/DecodeBatch',
    'Setup/ContextBGV',
  ]

  it('computes correct results in every scheme before timing (decrypt(encrypt(x)) == x, add, multiply, rotate)', async () => {
    const { result } = await run(plan([4096], ops))
    expect(result.envs.map((env) => env.scheme)).toEqual(['ckks', 'bfv', 'bgv'])
    for (const env of result.envs) {
      expect(env.sanity.map((check) => check.check)).toEqual([
        'decrypt(encrypt(x)) == x (public key)',
        'decrypt(encryptSymmetric(x)) == x (secret key)',
        'add',
        'multiply + relinearize',
        'rotate by 1',
      ])
      for (const check of env.sanity) expect(check.ok, `${env.scheme} ${check.check}: ${check.detail}`).toBe(true)
      expect(env.logQ).toBe(109)
      expect(env.coeffModulusBits).toEqual([36, 36, 37])
    }
    expect(result.envs.find((env) => env.scheme === 'bfv')?.plainModulus).toBe('1032193')
  })

  it('times every planned row with positive, finite samples and deletes every SEAL object', async () => {
    const before = liveSealHandles()
    const { result, events } = await run(plan([4096], ops))
    expect(result.skipped).toEqual([])
    expect(result.cells.map((c) => `${c.group}/${c.op}`).sort()).toEqual([...ops].sort())
    for (const cell of result.cells) {
      expect(cell.samplesUs.length).toBeGreaterThanOrEqual(1)
      for (const us of [...cell.samplesUs, cell.medianUs, cell.minUs, cell.firstCallUs]) {
        expect(Number.isFinite(us) && us > 0, `${cell.group}/${cell.op}`).toBe(true)
      }
      expect(cell.minUs).toBeLessThanOrEqual(cell.medianUs)
    }
    expect(result.leakedHandles).toBe(0)
    expect(liveSealHandles()).toBe(before)
    // Every command is acknowledged after its events; `done` comes with the last one.
    expect(events.slice(-2).map((e) => e.type)).toEqual(['done', 'ack'])
    expect(events.filter((e) => e.type === 'ack')).toHaveLength(planCommands(plan([4096], ops)).length)
    expect(events.filter((e) => e.type === 'cell')).toHaveLength(ops.length)
  })

  it('skips rows sealbench would not register at n=1024 (one prime) and reports why the checks fail there', async () => {
    const { result } = await run(
      plan([1024], ['BFV/EvaluateAddCt', 'BFV/EvaluateRotateRows', 'BFV/EvaluateModSwitchInplace']),
    )
    expect(result.cells.map((c) => c.op)).toEqual(['EvaluateAddCt'])
    expect(result.skipped.map((s) => s.op)).toEqual(['EvaluateRotateRows', 'EvaluateModSwitchInplace'])
    expect(result.skipped[0]?.reason).toMatch(/single prime/)
    // SEAL's benchmark parameters at n=1024 (t = 20 bits, q = 27 bits) leave no noise budget.
    const bfv = result.envs[0]
    expect(bfv?.freshNoiseBudgetBits).toBe(0)
    expect(bfv?.sanity.find((c) => c.check.includes('public key'))?.ok).toBe(false)
  })

  it("runs the Search rows at the search's parameters only, the kernel checked against SEAL before timing", async () => {
    const before = liveSealHandles()
    const search = OP_CATALOG.filter((spec) => spec.group === 'Search').map((spec) => spec.id)
    expect(search).toEqual([
      'Search/EvaluateRotateRows',
      'Search/EvaluateMulPtNtt',
      'Search/KernelRotate',
      'Search/KernelRotateHoisted',
      'Search/KernelMulPtNtt',
    ])
    const searchPlan = plan([2048, 4096], search)
    // The bgv-search context exists at n = 4096 alone: no command opens it at 2048.
    expect(planCommands(searchPlan).filter((c) => c.type === 'open')).toEqual([
      { type: 'open', n: 4096, scheme: 'bgv-search' },
    ])
    const { result } = await run(searchPlan)
    expect(result.skipped).toEqual([])
    const [env] = result.envs
    expect(env?.coeffModulusBits).toEqual([27, 28, 28])
    expect(env?.plainModulus).toBe('65537')
    for (const check of env?.sanity ?? []) expect(check.ok, `${check.check}: ${check.detail}`).toBe(true)
    // A kernel row exists only if its rotation (or product) equalled SEAL's, word for word.
    expect(result.cells.map((c) => `${c.group}/${c.op}`)).toEqual(search)
    for (const cell of result.cells) expect(cell.medianUs > 0 && cell.logQ === 83, cell.op).toBe(true)
    expect(result.leakedHandles).toBe(0)
    expect(liveSealHandles()).toBe(before)
  })

  it('answers commands one at a time: a limited or unopened context skips its rows with the reason', async () => {
    const events: HarnessEvent[] = []
    const limited = {
      ...plan([4096], ['BGV/EvaluateAddCt']),
      limits: [{ scheme: 'bgv' as const, maxN: 2048, reason: 'left out of this run' }],
    }
    const session = new HarnessSession({
      seal,
      plan: limited,
      now: () => performance.now(),
      emit: (e) => void events.push(e),
    })
    await session.handle({ seq: 0, type: 'cell', op: 'BGV/EvaluateAddCt' })
    await session.handle({ seq: 1, type: 'open', n: 4096, scheme: 'bgv' })
    await session.handle({ seq: 2, type: 'cell', op: 'BGV/EvaluateAddCt' })
    await session.handle({ seq: 3, type: 'close' })
    const skips = events.flatMap((e) => (e.type === 'skip' ? [e.row.reason] : []))
    expect(skips).toEqual(['no context open', 'left out of this run'])
    expect(events.filter((e) => e.type === 'env')).toHaveLength(0)
    expect(events.flatMap((e) => (e.type === 'ack' ? [e.seq] : []))).toEqual([0, 1, 2, 3])
  })
})
