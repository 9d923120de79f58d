import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import { identityProgram } from './abusePrograms.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Cold contexts: a program is priced as if its parameters' context were built, and a
 * worker keeps the contexts it built — but the first job under new parameters makes its
 * worker build one first: about 2 s of CPU for CKKS at n = 16384 (nine primes), for a
 * program priced at a unit or two. Sent under ever new parameters (another scale each
 * time), such programs held the worker for seconds each while costing the tenant almost
 * nothing. The hub now charges the build to the tenant and weighs it in the fair queue
 * when no job ran under those parameters lately; parameters in use stay cheap.
 */

const FILE = 'coldContexts.e2e.test.ts'
/** Three cold CKKS n = 16384 builds (≈ 11,000 units each at nine primes), not a fourth. */
const BUDGET = 40_000
const PARAMS = { scheme: 'ckks', polyModulusDegree: 16384 } as const

describe('cold contexts are charged their build (a real server process)', () => {
  let server: AbuseServer
  let idle: HealthStats

  beforeAll(async () => {
    server = await spawnAbuseServer(
      {
        TENANT_COST_BUDGET: String(BUDGET),
        TENANT_COST_WINDOW_MS: '3600000',
        MAX_PROGRAM_COST: '10000',
        // Every tenant here is a session from one loopback address; what they share is anonymousBudget.e2e's subject.
        ADDRESS_COST_BUDGET: '100000000',
      },
      { name: 'cold-contexts' },
    )
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  /**
   * One identity program at `scaleBits` with no input sent: the worker builds (or reuses)
   * the context, then refuses the missing input — the build is the whole cost.
   */
  async function run(client: AbuseServer['client'], scaleBits: number) {
    const error = await errorOf(
      client.evaluate({ params: { ...PARAMS, scaleBits }, program: identityProgram, inputs: {} }),
    )
    return { status: error.httpStatus, code: error.code, message: error.message }
  }

  it('a tenant sending programs under ever new parameters pays for each context: its budget buys three builds, not thousands', async () => {
    const attacker = (await server.client.createSession()).client
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (const scaleBits of [30, 31, 32, 33, 34, 35]) {
        const answer = await run(attacker, scaleBits)
        answers.push(answer)
        if (answer.code === 'RATE_LIMITED') break
      }
      return answers
    })
    // Built and answered (the missing input, after the build) until the budget ran out.
    const built = result.filter((answer) => answer.code !== 'RATE_LIMITED')
    expect(built.length).toBe(3)
    for (const answer of built) expect(answer.status).toBeGreaterThanOrEqual(400)
    const refusal = result.at(-1)
    expect(refusal?.status).toBe(429)
    expect(refusal?.message).toMatch(/building the context of parameters no worker has used lately/)
    expect(refusal?.message).toMatch(/TENANT_COST_BUDGET/)

    // Parameters a worker ran lately are warm: another tenant repeats one of them for a
    // unit or two each, many more times than its budget would buy cold builds.
    const other = (await server.client.createSession()).client
    const repeated = []
    for (let i = 0; i < 6; i++) repeated.push(await run(other, 30))
    expect(repeated.map((answer) => answer.code)).not.toContain('RATE_LIMITED')
    expectHealthy({
      attack: 'cold contexts',
      test: `${FILE} › CKKS n = 16384 under ever new scales`,
      answer: `${built.length} built, then 429 naming the builds; the same parameters again: ${repeated.length} × ${repeated[0]?.status}`,
      during: health,
      idle,
    })
  }, 180_000)
})
