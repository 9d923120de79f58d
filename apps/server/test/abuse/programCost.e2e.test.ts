import { exportEvaluationKeys, getHeContext, KeySet, type ProgramInput } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, holdWorker, type SearchSide, untilQueue } from '../harness.ts'
import { duringAttack, evaluateRaw, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import { fetchFrom } from './abuseNode.ts'
import { encryptedInput, multiplyBody, SMALL_BFV_PARAMS as params } from './abusePrograms.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Program cost: a program's cost is bounded and scheduled. One tenant
 * flooding the only worker with the most expensive programs the server allows delays
 * another tenant's search by about one such program; programs above MAX_PROGRAM_COST
 * and tenants past their budget are refused before any worker time; a full queue's
 * Retry-After covers the work ahead of it. Every bound is compared with job durations
 * measured in the same run, never with a fixed number of milliseconds.
 */

const FILE = 'programCost.e2e.test.ts'
const MAX_PROGRAM_COST = 600
const QUEUE_SIZE = 6

/** x^16 at n = 4096 BFV: 15 multiplies and relinearizations, ≈ 450 cost units — the most this server allows. */
const maxCostProgram: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [{ op: 'exponentiate', a: 'x', exponent: 16, out: 'r' }],
  outputs: ['r'],
}

describe('program cost: bounded, budgeted and scheduled fairly', () => {
  let server: AbuseServer
  let anonymous: SealboxClient
  let side: SearchSide
  let keysEnvelope: Uint8Array
  let input: Uint8Array
  let idle: HealthStats

  /** A fresh tenant with the relinearization keys the max-cost program needs. */
  async function programTenant(): Promise<SealboxClient> {
    const { client } = await anonymous.createSession()
    await client.putKeySet('relin', keysEnvelope)
    return client
  }

  function runMaxCost(client: SealboxClient) {
    return client.evaluate({ params, program: maxCostProgram, inputs: { x: input }, keySet: 'relin' })
  }

  beforeAll(async () => {
    server = await spawnAbuseServer(
      {
        // Client-side baby steps with g = D' = 8: the searches here upload no keys.
        SEARCH_BABY_STEPS: 'client',
        SEARCH_BABY_STEP: '8',
        MAX_PROGRAM_COST: String(MAX_PROGRAM_COST),
        TENANT_COST_BUDGET: '5800',
        TENANT_COST_WINDOW_MS: '600000',
        // Every tenant here is a session from one loopback address; what they share is anonymousBudget.e2e's subject.
        ADDRESS_COST_BUDGET: '1000000',
        QUEUE_SIZE: String(QUEUE_SIZE),
        TENANT_QUEUE_SIZE: String(QUEUE_SIZE),
        REQUEST_TIMEOUT_MS: '120000',
        // The hold fault: a barrier that keeps the worker busy while the queue fills.
        FAULT_INJECTION: 'true',
      },
      { name: 'cost' },
    )
    anonymous = server.client
    const ctx = await getHeContext(params)
    using keys = KeySet.generate(ctx, { relin: true })
    keysEnvelope = exportEvaluationKeys(keys)
    input = encryptedInput(ctx, keys)
    const { client } = await anonymous.createSession()
    side = await server.searchSide(client)
    // Warm the worker: the program's context and keys, and the search.
    await runMaxCost(await programTenant())
    await client.search(side.query(1).bytes)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('another tenant’s search waits about one program while a tenant floods maximum-cost programs', async () => {
    const flooder = await programTenant()
    // From another address: the sessions of one address share one lane of the fair queue.
    const elsewhere = new SealboxClient({ baseUrl: server.url, retry: false, fetch: fetchFrom('127.0.0.71') })
    const { client: searcher } = await elsewhere.createSession()
    const q = side.query(2)
    const finished: string[] = []
    const { result, health } = await duringAttack(server.url, async () => {
      const flood = Array.from({ length: QUEUE_SIZE }, (_, i) =>
        runMaxCost(flooder).then((reply) => {
          finished.push(`a${i}`)
          return reply
        }),
      )
      // Every program of the flood admitted (queued, running or done) while some still wait.
      await untilQueue(
        server.url,
        (pool) => pool.queued > 0 && pool.queued + pool.running + finished.length === QUEUE_SIZE,
        'the flood is queued',
      )
      const search = searcher.search(q.bytes).then((reply) => {
        finished.push('b')
        return reply
      })
      return { flood: await Promise.all(flood), search: await search }
    })
    const jobMs = result.flood.map((reply) => (reply.timing.total ?? 0) - (reply.timing.queue ?? 0))
    const longest = Math.max(...jobMs)
    const searchWait = result.search.timing.queue ?? Number.POSITIVE_INFINITY
    console.log(
      `max-cost program ${jobMs.map((ms) => ms.toFixed(0)).join(', ')} ms; the other tenant's search waited ${searchWait.toFixed(0)} ms; finished: ${finished.join(' ')}`,
    )
    // The search went right after the program that was running when it arrived.
    expect(finished.indexOf('b')).toBeLessThanOrEqual(1)
    expect(searchWait).toBeLessThanOrEqual(1.25 * longest)
    expect(Array.from(side.search.decryptScores(result.search.responses).scores)).toEqual(Array.from(q.expected))
    expectHealthy({
      attack: 'program cost',
      test: `${FILE} › another tenant’s search waits about one program while a tenant floods maximum-cost programs`,
      answer: `200; search queue ${searchWait.toFixed(0)} ms vs a program's ${longest.toFixed(0)} ms`,
      during: health,
      idle,
    })
  })

  it('refuses a program above MAX_PROGRAM_COST and a tenant past its budget up front', async () => {
    const { session } = await anonymous.createSession()
    const post = (body: Uint8Array) => evaluateRaw(server.url, session.token, body)
    // The first job under new parameters is charged its context's build (more than this
    // budget at n = 16384): another tenant warms them, so the budget below pays for programs alone.
    const warmer = (await anonymous.createSession()).session
    const warm = await evaluateRaw(server.url, warmer.token, multiplyBody(1))
    // Built, then refused in the worker for its fake input, as the programs below are.
    expect([warm.status, warm.json.error?.code]).not.toEqual([429, 'RATE_LIMITED'])
    const { result, health } = await duringAttack(server.url, async () => {
      const tooBig = await post(multiplyBody(2))
      const answers = []
      // 5,800 units of budget; each ≈ 520 (refused in the worker, but its cost is spent at admission).
      for (let i = 0; i < 12; i++) answers.push(await post(multiplyBody(1)))
      return { tooBig, answers }
    })
    expect([result.tooBig.status, result.tooBig.json.error?.code]).toEqual([422, 'LIMIT_EXCEEDED'])
    expect(result.tooBig.json.error?.message).toMatch(/costs about [\d,]+ cost units; this server's limit is 600/)
    expect(result.tooBig.json.error?.message).toMatch(/MAX_PROGRAM_COST/)
    const statuses = result.answers.map((answer) => answer.status)
    expect(statuses.slice(0, 11).every((status) => status !== 429)).toBe(true)
    const limited = result.answers[11]
    expect([limited?.status, limited?.json.error?.code]).toEqual([429, 'RATE_LIMITED'])
    expect(limited?.json.error?.message).toMatch(/budget of 5,800 per 600 s \(TENANT_COST_BUDGET/)
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expectHealthy({
      attack: 'program cost',
      test: `${FILE} › refuses a program above MAX_PROGRAM_COST and a tenant past its budget up front`,
      answer: `422 LIMIT_EXCEEDED; 429 RATE_LIMITED (Retry-After ${limited?.headers.get('retry-after')} s) after ${statuses.length - 1} programs`,
      during: health,
      idle,
    })
  })

  it('answers a full queue 503 with a Retry-After that covers the work ahead', async () => {
    const flooder = await programTenant()
    const { client: late } = await anonymous.createSession()
    const { session } = await anonymous.createSession()
    const { result, health } = await duringAttack(server.url, async () => {
      // The worker is held, so the flood fills the queue and stays there until released.
      const held = await holdWorker(server.url, session.token)
      const flood = Array.from({ length: QUEUE_SIZE }, () => runMaxCost(flooder))
      await untilQueue(server.url, (pool) => pool.queued === QUEUE_SIZE, 'the queue is full')
      const refused = await errorOf(late.with({ retry: false }).search(side.query(3).bytes))
      await held.release()
      expect((await held.done).status).toBe(200)
      return { refused, flood: await Promise.all(flood) }
    })
    expect(result.refused.code).toBe('OVERLOADED')
    const retryAfter = Number(result.refused.details?.retryAfterSeconds)
    const jobMs = result.flood.map((reply) => (reply.timing.total ?? 0) - (reply.timing.queue ?? 0))
    const shortest = Math.min(...jobMs)
    console.log(
      `Retry-After ${retryAfter} s with ${QUEUE_SIZE} programs of ${jobMs.map((ms) => ms.toFixed(0)).join(', ')} ms queued`,
    )
    // Six queued programs were ahead of the refused request (plus the running one). The
    // server prices them with its cost model at the rate its finished jobs ran at; the
    // model's calibration holds every kind of job within 2x of that rate, so Retry-After
    // covers at least half the work ahead, however slow the machine is today.
    expect(retryAfter * 1000).toBeGreaterThanOrEqual((QUEUE_SIZE * shortest) / 2)
    expectHealthy({
      attack: 'program cost',
      test: `${FILE} › answers a full queue 503 with a Retry-After that covers the work ahead`,
      answer: `503 OVERLOADED, Retry-After ${retryAfter} s for ${QUEUE_SIZE} queued programs of ≥ ${shortest.toFixed(0)} ms`,
      during: health,
      idle,
    })
  })
})
