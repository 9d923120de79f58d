import { analyzeProgram, encodeBatch, encryptSymmetric, getHeContext, KeySet, withScope } from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { saveSealObject } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import {
  type AbuseNode,
  requestFrom,
  sessionFrom,
  startAbuseNode,
  type VictimStats,
  victimBaseline,
  victimDuring,
} from './abuseNode.ts'
import { SMALL_BFV_PARAMS } from './abusePrograms.ts'

/*
 * Budgets per client in local mode: sessions are free to make (SESSION_BURST per
 * address), so a cost budget per session let one address spend its budget once per
 * session — 30 sessions, 29× one tenant's budget within seconds. Now the anonymous
 * tenants of one client address also share one budget (ADDRESS_COST_BUDGET, by default
 * TENANT_COST_BUDGET); another address keeps its own.
 */

const FILE = 'anonymousBudget.e2e.test.ts'
/** Holds about 15 of the attacker's programs, and the victim's 8 searches (≈ 28 units each) on its own address. */
const BUDGET = 500
const SESSIONS = 30
/** Generous: the victim's slowest search while the budgets are spent, vs its idle median. */
const VICTIM_FACTOR = 20
/** The victim's own budget is the same small one: a few searches during the attack. */
const VICTIM_SEARCHES = 5

/** One multiply at n = 4096 BFV (≈ 32 cost units with its input and output). */
const multiplyProgram = {
  version: 1 as const,
  inputs: [{ name: 'x', kind: 'ciphertext' as const }],
  steps: [{ op: 'multiply' as const, a: 'x', b: 'x', out: 'r' }],
  outputs: ['r'],
}

describe('anonymous tenants of one address share one cost budget', () => {
  let server: AbuseNode
  let body: Uint8Array
  let units: number
  let idle: HealthStats
  let baseline: VictimStats

  beforeAll(async () => {
    server = await startAbuseNode('anon-budget', {
      TENANT_COST_BUDGET: String(BUDGET),
      // A long window: what refills during the test is a small fraction of the budget.
      TENANT_COST_WINDOW_MS: '3600000',
      MAX_PROGRAM_COST: String(BUDGET),
      SESSION_BURST: String(SESSIONS + 5),
    })
    const ctx = await getHeContext(SMALL_BFV_PARAMS)
    using keys = KeySet.generate(ctx, {})
    const x = withScope((scope) =>
      saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope), {
        kind: 'ciphertext',
        fingerprint: ctx.fingerprint,
        keySetId: keys.id,
        compression: 'zstd',
      }),
    )
    body = encodeEvaluateRequest({ params: SMALL_BFV_PARAMS, program: multiplyProgram, inputs: { x } })
    units = analyzeProgram(multiplyProgram, SMALL_BFV_PARAMS).cost.units
    // The first job under new parameters is charged its context's build: warmed from an
    // address of its own, so the budgets below pay for the programs alone.
    const warmer = '127.0.0.30'
    const warm = await requestFrom(server.url, warmer, {
      method: 'POST',
      path: '/api/v1/evaluate',
      token: await sessionFrom(server.url, warmer),
      body,
    })
    expect(warm.status).toBe(200)
    baseline = await victimBaseline(server.victim, 3)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  /**
   * Evaluates from `address` as `token` until the first refusal; the number that ran, the
   * refusal, and the slowest answer (what the machine made of one program meanwhile).
   */
  async function spend(address: string, token: string) {
    let ran = 0
    let slowestMs = 0
    for (;;) {
      const started = performance.now()
      const answer = await requestFrom(server.url, address, {
        method: 'POST',
        path: '/api/v1/evaluate',
        token,
        body,
      })
      slowestMs = Math.max(slowestMs, performance.now() - started)
      if (answer.status !== 200) return { ran, refusal: answer, slowestMs }
      ran++
    }
  }

  it('30 sessions from one address spend one budget between them, not 30; another address has its own', async () => {
    expect(units).toBeGreaterThan(BUDGET / 20)
    const attacker = '127.0.0.21'
    const tokens: string[] = []
    for (let i = 0; i < SESSIONS; i++) tokens.push(await sessionFrom(server.url, attacker))
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(
        server.victim,
        async () => {
          const spent = []
          for (const token of tokens) spent.push(await spend(attacker, token))
          return spent
        },
        { maxSearches: VICTIM_SEARCHES },
      ),
    )
    const ran = result.result.reduce((sum, s) => sum + s.ran, 0)
    const spentUnits = ran * units
    // One budget (plus what refills in the test, well under one program), not SESSIONS of them.
    expect(spentUnits).toBeLessThanOrEqual(BUDGET + units)
    expect(ran).toBeGreaterThanOrEqual(Math.floor(BUDGET / units))
    for (const { refusal } of result.result) {
      expect([refusal.status, refusal.code]).toEqual([429, 'RATE_LIMITED'])
      expect(Number(refusal.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    const last = result.result.at(-1)?.refusal.json.error as { message: string }
    expect(last.message).toMatch(
      new RegExp(`sessions of this client address have spent the budget of ${BUDGET} .*ADDRESS_COST_BUDGET`),
    )
    expect(result.victim.failed).toEqual({})
    // The attacker sends one program at a time, so a search waits behind at most one of
    // them: bounded by the idle search and the slowest program, both measured in this
    // test (a machine that stalls one stalls the other).
    const slowestProgram = Math.max(...result.result.map((s) => s.slowestMs))
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + 2 * slowestProgram + 1000)

    // Another address is not affected: its own session spends its own budget.
    const other = await spend('127.0.0.22', await sessionFrom(server.url, '127.0.0.22'))
    expect(other.ran).toBe(Math.floor(BUDGET / units))
    expectHealthy({
      attack: 'anonymous budget',
      test: `${FILE} › ${SESSIONS} sessions from one address`,
      answer: `${ran} programs (${Math.round(spentUnits)} units of a ${BUDGET}-unit budget) across ${SESSIONS} sessions, then 429; another address ran ${other.ran}`,
      during: health,
      idle,
    })
  })
})
