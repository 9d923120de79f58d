import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, rawRequest } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode, type VictimStats, victimBaseline, victimDuring } from './abuseNode.ts'

/*
 * The small HTTP findings: If-None-Match `*` and weak tags must revalidate (304, as RFC
 * 9110 §13.1.2's weak comparison says), a request carrying two Authorization headers is
 * refused rather than served as whichever one the parser kept, and the catalog's
 * `offset` and `limit` are decimal integers only (no `0x10`, no spaces, not empty).
 */

const FILE = 'httpLows.e2e.test.ts'
/** Generous: the victim's slowest search during a burst of tiny requests vs its idle median. */
const VICTIM_FACTOR = 20

describe('HTTP lows: conditional GETs, duplicate credentials, catalog paging', () => {
  let server: AbuseNode
  let idle: HealthStats
  let baseline: VictimStats
  let token: string

  beforeAll(async () => {
    server = await startAbuseNode('lows')
    token = (await server.client.createSession()).session.token
    baseline = await victimBaseline(server.victim)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  async function attack<T>(run: () => Promise<T>) {
    const { result, health } = await duringAttack(server.url, () => victimDuring(server.victim, run))
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + 1000)
    return { result: result.result, health }
  }

  it('If-None-Match: *, a weak tag and a list holding the tag each answer 304; another tag 200', async () => {
    const path = '/api/v1/search/catalog?offset=0&limit=10'
    const first = await rawRequest(server.url, { method: 'GET', path })
    const etag = first.headers.etag as string
    expect(first.status).toBe(200)
    expect(etag).toMatch(/^"[^"]+"$/)
    const { result, health } = await attack(async () => {
      const answers: Record<string, number> = {}
      for (const [name, value] of [
        ['star', '*'],
        ['strong', etag],
        ['weak', `W/${etag}`],
        ['list', `"other", W/${etag}`],
        ['other', '"other"'],
        ['weak-other', 'W/"other"'],
      ] as const) {
        const answer = await rawRequest(server.url, { method: 'GET', path, headers: { 'if-none-match': value } })
        answers[name] = answer.status
        if (answer.status === 304) expect(answer.text).toBe('')
      }
      return answers
    })
    expect(result).toEqual({ star: 304, strong: 304, weak: 304, list: 304, other: 200, 'weak-other': 200 })
    expectHealthy({
      attack: 'HTTP lows',
      test: `${FILE} › If-None-Match *, weak and listed tags`,
      answer: '304 for *, W/"tag" and a list with it; 200 otherwise',
      during: health,
      idle,
    })
  })

  it('two Authorization headers: 400 INVALID_INPUT, whether the first or the second one is valid', async () => {
    const { result, health } = await attack(async () => {
      const answers: string[] = []
      for (const pair of [
        [`Bearer ${token}`, 'Bearer not-a-token'],
        ['Bearer not-a-token', `Bearer ${token}`],
        [`Bearer ${token}`, `Bearer ${token}`],
      ]) {
        const answer = await rawRequest(server.url, {
          method: 'GET',
          path: '/api/v1/keysets',
          // node:http sends an array value as repeated header lines.
          headers: { authorization: pair as unknown as string },
        })
        answers.push(`${answer.status} ${(JSON.parse(answer.text) as { error?: { code: string } }).error?.code}`)
      }
      const single = await rawRequest(server.url, {
        method: 'GET',
        path: '/api/v1/keysets',
        headers: { authorization: `Bearer ${token}` },
      })
      answers.push(String(single.status))
      return answers
    })
    expect(result).toEqual(['400 INVALID_INPUT', '400 INVALID_INPUT', '400 INVALID_INPUT', '200'])
    expectHealthy({
      attack: 'HTTP lows',
      test: `${FILE} › two Authorization headers`,
      answer: '400 INVALID_INPUT (one header: 200)',
      during: health,
      idle,
    })
  })

  it("the catalog's offset and limit take decimal integers only: 0x10, ' 5 ', empty, 1e1 and -0 are 400", async () => {
    const { result, health } = await attack(async () => {
      const answers: Record<string, string> = {}
      for (const query of [
        'offset=0x10',
        'offset=%205%20',
        'offset=',
        'offset=1e1',
        'offset=-0',
        'offset=5.0',
        'limit=0x10',
        'limit=',
        'offset=5&limit=10',
        'offset=0',
        '',
      ]) {
        const answer = await rawRequest(server.url, { method: 'GET', path: `/api/v1/search/catalog?${query}` })
        const body = JSON.parse(answer.text) as { offset?: number; ids?: unknown[]; error?: { code: string } }
        answers[query] =
          answer.status === 200 ? `200 ${body.offset}+${body.ids?.length}` : `${answer.status} ${body.error?.code}`
      }
      return answers
    })
    expect(result).toEqual({
      'offset=0x10': '400 INVALID_INPUT',
      'offset=%205%20': '400 INVALID_INPUT',
      'offset=': '400 INVALID_INPUT',
      'offset=1e1': '400 INVALID_INPUT',
      'offset=-0': '400 INVALID_INPUT',
      'offset=5.0': '400 INVALID_INPUT',
      'limit=0x10': '400 INVALID_INPUT',
      'limit=': '400 INVALID_INPUT',
      'offset=5&limit=10': '200 5+10',
      'offset=0': '200 0+300',
      '': '200 0+300',
    })
    expectHealthy({
      attack: 'HTTP lows',
      test: `${FILE} › catalog offset/limit`,
      answer: "400 INVALID_INPUT for 0x10, ' 5 ', empty, 1e1, -0, 5.0",
      during: health,
      idle,
    })
  })
})
