import { getHeContext } from '@sealbox/he-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  duringAttack,
  expectHealthy,
  type HealthStats,
  idleHealth,
  metricSum,
  metricsText,
  putKeySetRaw,
} from './abuseHarness.ts'
import {
  type AbuseNode,
  memoryOf,
  startAbuseNode,
  type VictimStats,
  victimBaseline,
  victimDuring,
} from './abuseNode.ts'
import { galoisKeyBomb, type KeyBomb } from './keyBomb.ts'

/*
 * The key bomb: a ~70 KB zstd Galois-key upload under the server's own search parameters
 * whose meta lists all n Galois elements and whose payload is well formed but all zero,
 * so it inflates to ~1.6 GB. The inflate bound used to be "elements listed × one key
 * list" — exactly that — so the worker inflated it all (and SEAL copied it) before the
 * 400. Now the upload is refused before anything is inflated: genuine key coefficients
 * are uniform modulo the primes, so no compressor stores a key in fewer bytes than its
 * entropy, and an upload too small to hold the keys its meta lists is not those keys.
 */

const FILE = 'keyBomb.e2e.test.ts'
/**
 * A bomb is refused within 2 s on a quiet machine, or within REFUSAL_FACTOR × the victim's
 * idle search (measured in the same test: the same trip through the loop and the worker)
 * on a loaded one. Inflating the bomb took 2.4–10 s of the worker, a 20× slower machine
 * aside, so either bound tells a refusal before inflating from one after.
 */
const REFUSED_WITHIN_MS = 2000
const REFUSAL_FACTOR = 20
/** Resident memory does not depend on the machine's load: a fixed bound (the inflated bomb is 1.6 GB). */
const MAX_RSS_GROWTH = 600 * 2 ** 20
/** Generous: the victim's slowest search while bombs are refused, vs its idle median (plus the refusal bound). */
const VICTIM_FACTOR = 20

describe('the Galois key bomb is refused before it is inflated', () => {
  let server: AbuseNode
  let bomb: KeyBomb
  let idle: HealthStats
  let baseline: VictimStats
  let attacker: string

  beforeAll(async () => {
    server = await startAbuseNode('keybomb')
    const ctx = await getHeContext(server.victim.side.config.params)
    bomb = await galoisKeyBomb({
      fingerprint: ctx.fingerprint,
      keySetId: server.victim.side.search.keySet.id,
      n: ctx.params.polyModulusDegree,
      keyPrimes: ctx.coeffPrimes.length,
    })
    attacker = (await server.client.createSession()).session.token
    baseline = await victimBaseline(server.victim)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  /** How long one bomb may take to be refused: 2 s, or REFUSAL_FACTOR × the victim's idle search. */
  const refusalBound = () => Math.max(REFUSED_WITHIN_MS, REFUSAL_FACTOR * baseline.p50)

  /** One bomb's PUT as the attacker: its answer and how long it took, ms. */
  async function bombOnce(id: string) {
    const started = performance.now()
    const answer = await putKeySetRaw(server.url, attacker, id, bomb.envelope)
    return { answer, ms: performance.now() - started }
  }

  it('one bomb: 400 INVALID_ENVELOPE within 2 s (or a multiple of a search on a loaded machine), RSS growth under 600 MiB, the victim keeps searching', async () => {
    expect(bomb.envelope.length).toBeLessThan(200_000)
    expect(bomb.inflatedBytes).toBeGreaterThan(1.5e9)
    const pid = server.node.pid as number
    const before = memoryOf(pid)
    const { result, health } = await duringAttack(server.url, () => victimDuring(server.victim, () => bombOnce('bomb')))
    const after = memoryOf(pid)
    const growth = Math.max(after.peak, after.rss) - before.rss
    const { answer, ms } = result.result
    const bound = refusalBound()
    console.log(
      `one bomb refused in ${Math.round(ms)} ms (bound ${Math.round(bound)}; victim idle p50 ${baseline.p50} ms), RSS +${Math.round(growth / 2 ** 20)} MiB`,
    )
    expect([answer.status, answer.json.error?.code]).toEqual([400, 'INVALID_ENVELOPE'])
    expect(answer.json.error?.message).toMatch(/lists 4096 Galois elements/)
    expect(ms).toBeLessThan(bound)
    expect(growth).toBeLessThan(MAX_RSS_GROWTH)
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + bound)
    expectHealthy({
      attack: 'key bomb',
      test: `${FILE} › one bomb (${bomb.envelope.length} B → ${bomb.inflatedBytes} B)`,
      answer: `400 INVALID_ENVELOPE in ${Math.round(ms)} ms (bound ${Math.round(bound)}), RSS +${Math.round(growth / 2 ** 20)} MiB, victim max ${result.victim.max} ms (idle p50 ${baseline.p50})`,
      during: health,
      idle,
    })
  })

  it('eight bombs at once: each refused within about eight single refusals, the worker not replaced, the victim keeps searching', async () => {
    // One bomb alone first: the unit the eight are judged by, on this machine now.
    const one = await bombOnce('bomb-alone')
    expect(one.answer.status).toBe(400)
    const metricsBefore = await metricsText(server.url)
    const pid = server.node.pid as number
    const before = memoryOf(pid)
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(server.victim, () =>
        Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const { answer, ms } = await bombOnce(`bomb-${i}`)
            return { answer: `${answer.status} ${answer.json.error?.code}`, ms }
          }),
        ),
      ),
    )
    const after = memoryOf(pid)
    const growth = Math.max(after.peak, after.rss) - before.rss
    // They queue for the one worker, with the victim's searches between them: the last waits
    // for the other seven and a search or two. Twice that, or the single-bomb bound.
    const bound = Math.max(refusalBound(), 2 * (8 * one.ms + 2 * baseline.max))
    const slowest = Math.max(...result.result.map((r) => r.ms))
    console.log(
      `eight bombs refused, slowest in ${Math.round(slowest)} ms (bound ${Math.round(bound)}; one alone ${Math.round(one.ms)} ms), RSS +${Math.round(growth / 2 ** 20)} MiB`,
    )
    expect(new Set(result.result.map((r) => r.answer))).toEqual(new Set(['400 INVALID_ENVELOPE']))
    expect(slowest).toBeLessThan(bound)
    expect(growth).toBeLessThan(MAX_RSS_GROWTH)
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + bound)
    const metricsAfter = await metricsText(server.url)
    expect(metricSum(metricsAfter, 'sealbox_worker_replacements_total')).toBe(
      metricSum(metricsBefore, 'sealbox_worker_replacements_total'),
    )
    expectHealthy({
      attack: 'key bomb',
      test: `${FILE} › eight bombs at once`,
      answer: `8× 400 INVALID_ENVELOPE, slowest ${Math.round(slowest)} ms (bound ${Math.round(bound)}; one alone ${Math.round(one.ms)} ms), RSS +${Math.round(growth / 2 ** 20)} MiB, victim max ${result.victim.max} ms (idle p50 ${baseline.p50})`,
      during: health,
      idle,
    })
  })
})
