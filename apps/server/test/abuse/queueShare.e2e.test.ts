import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SearchSide, searchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, metricSum, metricsText } from './abuseHarness.ts'
import {
  type AbuseNode,
  type RawAnswer,
  requestFrom,
  sessionFrom,
  startAbuseNode,
  type VictimStats,
  victimBaseline,
  victimDuring,
} from './abuseNode.ts'
import { ABUSE_DATABASE } from './abuseServer.ts'

/*
 * Issue 33 H2: the queue is shared by lane — a tenant, or all the anonymous sessions of
 * one client address together. QUEUE_SIZE is 64 and TENANT_QUEUE_SIZE 32: two anonymous
 * sessions from one address used to hold 32 waiting searches each, the whole queue, and
 * another tenant got 503 on 86 of 182 searches. Now the address's sessions hold one
 * tenant's places between them, a lane under its fair share takes the place of the
 * newest job of the lane holding the most, and the other tenant is never refused.
 */

const FILE = 'queueShare.e2e.test.ts'
/** Searches each attacking session keeps in flight (the 2 × 34). */
const IN_FLIGHT = 34
/** Searches each in-flight slot sends one after another. */
const ROUNDS = 4
/** The victim's median during the flood, vs its idle median (the bound). */
const VICTIM_MEDIAN_FACTOR = 10
const ATTACKER = '127.0.0.41'

describe('two anonymous sessions from one address cannot fill the queue', () => {
  let server: AbuseNode
  let idle: HealthStats
  let baseline: VictimStats
  const sides: SearchSide[] = []
  const attackers: { token: string; query: Uint8Array }[] = []

  beforeAll(async () => {
    server = await startAbuseNode('queue-share')
    for (let i = 0; i < 2; i++) {
      const token = await sessionFrom(server.url, ATTACKER)
      const side = await searchSide(server.client, ABUSE_DATABASE)
      sides.push(side)
      const put = await requestFrom(server.url, ATTACKER, {
        method: 'PUT',
        path: '/api/v1/keysets/k',
        token,
        headers: { 'content-type': 'application/octet-stream' },
        body: side.keys as Uint8Array,
      })
      expect(put.status).toBe(201)
      attackers.push({ token, query: side.query(i + 1).bytes })
    }
    baseline = await victimBaseline(server.victim, 7)
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(async () => {
    for (const side of sides) side[Symbol.dispose]()
    await server?.stop()
  })

  it('2 × 34 searches in flight from one address: another tenant is never refused and keeps its median', async () => {
    const replacedBefore = metricSum(await metricsText(server.url), 'sealbox_worker_replacements_total')
    const flood = async () => {
      const answers: RawAnswer[] = []
      await Promise.all(
        attackers.flatMap(({ token, query }) =>
          Array.from({ length: IN_FLIGHT }, async () => {
            for (let round = 0; round < ROUNDS; round++) {
              answers.push(
                await requestFrom(server.url, ATTACKER, {
                  method: 'POST',
                  path: '/api/v1/search?keySet=k',
                  token,
                  headers: { 'content-type': 'application/octet-stream' },
                  body: query,
                }),
              )
            }
          }),
        ),
      )
      return answers
    }
    const { result, health } = await duringAttack(server.url, () => victimDuring(server.victim, flood))
    const answers = result.result
    const refused = answers.filter((answer) => answer.status === 503)
    const served = answers.filter((answer) => answer.status === 200)
    // Every attacker answer is a search or a 503 with a Retry-After; nothing else.
    expect(served.length + refused.length).toBe(answers.length)
    for (const answer of refused) {
      expect(answer.code).toBe('OVERLOADED')
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    // The address's lane was held to its share: it was refused (or pushed out) at least once.
    expect(refused.length).toBeGreaterThan(0)
    const victim = result.victim
    expect(victim.failed).toEqual({})
    expect(victim.searches).toBeGreaterThanOrEqual(3)
    expect(victim.p50).toBeLessThanOrEqual(VICTIM_MEDIAN_FACTOR * baseline.p50)
    const replacedAfter = metricSum(await metricsText(server.url), 'sealbox_worker_replacements_total')
    expect(replacedAfter).toBe(replacedBefore)
    expectHealthy({
      attack: 'queue share: 2 × 34 searches in flight from one address',
      test: `${FILE} › one address, two sessions`,
      answer: `attacker: ${served.length} served, ${refused.length} × 503 + Retry-After; other tenant: 0 of ${victim.searches} refused, median ${victim.p50} ms (idle ${baseline.p50} ms), max ${victim.max} ms`,
      during: health,
      idle,
    })
  }, 300_000)
})
