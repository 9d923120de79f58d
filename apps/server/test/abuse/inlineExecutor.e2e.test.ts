import { getHeContext, KeySet } from '@sealbox/he-core'
import { encodeEvaluateRequest, SEALBOX_HEADERS, type SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw, type SearchSide, searchSide } from '../harness.ts'
import {
  duringAttack,
  evaluateRaw,
  expectHealthy,
  type HealthStats,
  idleHealth,
  metricsText,
  searchRaw,
} from './abuseHarness.ts'
import { encryptedInput, multiplyBody, SMALL_BFV_PARAMS, transparentProgram } from './abusePrograms.ts'
import { ABUSE_DATABASE, type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Executor override: `npm start` lets any client pick the comparison-only `inline`
 * executor, which runs HE on the event loop. It must not wear out (its SEAL instance
 * is replaced like a worker's), never make the server unready, take only small jobs,
 * and be rate-limited per client address.
 */

const RECYCLE = 50
const FILE = 'inlineExecutor.e2e.test.ts'
const INLINE = { [SEALBOX_HEADERS.executor]: 'inline' }

function startServer(name: string, env: Record<string, string>): Promise<AbuseServer> {
  return spawnAbuseServer({ ALLOW_EXECUTOR_OVERRIDE: 'true', SEAL_ERROR_RECYCLE: String(RECYCLE), ...env }, { name })
}

async function metric(url: string, pattern: RegExp): Promise<number> {
  return Number(pattern.exec(await metricsText(url))?.[1] ?? 0)
}

const inlineReplacements = (url: string) =>
  metric(url, /sealbox_worker_replacements_total\{executor="inline",reason="sealExceptions"\} (\d+)/)

/** The transparent-result program (SEAL throws on every request) as an evaluate body. */
async function transparentResultBody(): Promise<Uint8Array> {
  const ctx = await getHeContext(SMALL_BFV_PARAMS)
  using keys = KeySet.generate(ctx, {})
  const x = encryptedInput(ctx, keys)
  return encodeEvaluateRequest({ params: SMALL_BFV_PARAMS, program: transparentProgram, inputs: { x, y: x } })
}

describe('the inline executor cannot stall, starve or wedge the server', () => {
  let server: AbuseServer
  let client: SealboxClient
  let token: string
  let side: SearchSide
  let idle: HealthStats

  beforeAll(async () => {
    server = await startServer('inline', {
      EXECUTOR_OVERRIDE_RATE: '1000',
      EXECUTOR_OVERRIDE_BURST: '1000',
      // Info: the log says how long each warm-up of the inline SEAL instance took.
      LOG_LEVEL: 'info',
      // 110 inline jobs in a row from one address: its inline-ms budget is inlineFlood.e2e's subject.
      INLINE_BUDGET_MS: '3600000',
      // So is admission by measured time: the program here is at parameters the inline executor
      // has not used (and, after each replacement, has not used again), whose context a loaded
      // machine would predict past the default.
      INLINE_MAX_JOB_MS: '60000',
    })
    const session = await server.client.createSession()
    client = session.client
    token = session.session.token
    side = await server.searchSide(client)
    await client.putKeySet('k', side.keys as Uint8Array)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('replaces its SEAL instance after SEAL_ERROR_RECYCLE caught exceptions and stays ready', async () => {
    const before = await inlineReplacements(server.url)
    const body = await transparentResultBody()
    const total = 2 * RECYCLE + 10
    const { result: codes, health } = await duringAttack(server.url, async () => {
      const seen = new Map<string, number>()
      for (let i = 0; i < total; i++) {
        const answer = await evaluateRaw(server.url, token, body, INLINE)
        const key = `${answer.status} ${answer.json.error?.code}`
        seen.set(key, (seen.get(key) ?? 0) + 1)
      }
      return Object.fromEntries(seen)
    })
    // Every request made SEAL throw; none found a worn-out instance.
    expect(codes).toEqual({ '422 SEAL_ERROR': total })
    expect(await inlineReplacements(server.url)).toBeGreaterThanOrEqual(before + 2)
    const ready = await raw(`${server.url}/readyz`)
    expect(ready.status).toBe(200)
    const inline = (ready.json.executors as Array<{ mode: string; replacements: number }>).find(
      (executor) => executor.mode === 'inline',
    )
    expect(inline?.replacements).toBeGreaterThanOrEqual(2)
    // The fresh instance answers correctly.
    const q = side.query(10)
    const result = await client.with({ executor: 'inline' }).search(q.bytes, { keySet: 'k' })
    expect(result.executor).toBe('inline')
    expect(Array.from(side.search.decryptScores(result.responses).scores)).toEqual(Array.from(q.expected))
    // Rebuilding the SEAL instance runs on the loop (the thread cannot be replaced): the
    // server logs how long each warm-up took, the baseline for what a probe may wait.
    const warmUps = server
      .output()
      .split('\n')
      // The message names the processed cache's outcome after the colon (read, written…).
      .filter((line) => /"msg":"inline worker warm[:"]/.test(line))
      .map((line) => Number((JSON.parse(line) as { warmMs?: number }).warmMs))
    expect(warmUps.length).toBeGreaterThanOrEqual(3)
    expectHealthy(
      {
        attack: 'executor override',
        test: `${FILE} › replaces its SEAL instance after SEAL_ERROR_RECYCLE caught exceptions and stays ready`,
        answer: `${total}× 422 SEAL_ERROR (transparent result), then /readyz 200 and a correct inline search`,
        during: health,
        idle,
      },
      { loopBlockedMs: Math.max(...warmUps) },
    )
  })

  it('refuses an expensive program up front, naming its cost and MAX_INLINE_COST', async () => {
    // Two n = 16384 multiplies: far above MAX_INLINE_COST, refused before any input is loaded.
    const expensive = multiplyBody(2)
    const { result: answer, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (let i = 0; i < 40; i++) answers.push(await evaluateRaw(server.url, token, expensive, INLINE))
      return answers
    })
    for (const { status, json } of answer) {
      expect([status, json.error?.code]).toEqual([422, 'LIMIT_EXCEEDED'])
      expect(json.error?.message).toMatch(/costs about [\d,]+ cost units/)
      expect(json.error?.message).toMatch(/at most 100 \(MAX_INLINE_COST\)/)
    }
    expectHealthy({
      attack: 'executor override',
      test: `${FILE} › refuses an expensive program up front, naming its cost and MAX_INLINE_COST`,
      answer: '422 LIMIT_EXCEEDED',
      during: health,
      idle,
    })
  })
})

describe('executor override rate limit', () => {
  let server: AbuseServer

  beforeAll(async () => {
    server = await startServer('override', {
      EXECUTOR_OVERRIDE_RATE: '0.5',
      EXECUTOR_OVERRIDE_BURST: '5',
      // The inline admission by measured time and the per-address inline budget are
      // inlineFlood.e2e's subject; on a busy machine they would refuse these searches (422)
      // before the override's own rate limit, which is this test's subject, is reached.
      INLINE_MAX_JOB_MS: '60000',
      INLINE_BUDGET_MS: '3600000',
    })
  }, 120_000)

  afterAll(() => server?.stop())

  it('answers 429 RATE_LIMITED with Retry-After past the burst, and still serves requests without the override', async () => {
    const idle = await idleHealth(server.url)
    const { client, session } = await server.client.createSession()
    const token = session.token
    using side = await searchSide(client, ABUSE_DATABASE)
    await client.putKeySet('k', side.keys as Uint8Array)
    const q = side.query(3)
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (let i = 0; i < 12; i++) {
        answers.push(await searchRaw(server.url, token, 'k', q.bytes, INLINE))
      }
      // The same client, same tenant, without the header: served by the default executor.
      const plain = await client.search(q.bytes, { keySet: 'k' })
      return { statuses: answers.map((answer) => answer.status), limited: answers.find((a) => a.status === 429), plain }
    })
    expect(result.statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(result.statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(6)
    expect(result.limited?.json.error?.code).toBe('RATE_LIMITED')
    expect(result.limited?.json.error?.message).toMatch(/EXECUTOR_OVERRIDE_RATE/)
    expect(Number(result.limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(result.plain.executor).toBe('pool')
    expect(Array.from(side.search.decryptScores(result.plain.responses).scores)).toEqual(Array.from(q.expected))
    expectHealthy({
      attack: 'executor override',
      test: `${FILE} › answers 429 RATE_LIMITED with Retry-After past the burst, and still serves requests without the override`,
      answer: '429 RATE_LIMITED (Retry-After), 200 without the override',
      during: health,
      idle,
    })
  })
})
