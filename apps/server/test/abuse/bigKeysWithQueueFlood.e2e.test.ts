import { getHeContext, KeySet } from '@sealbox/he-core'
import { PrivateSearchClient } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SearchSide, searchSide } from '../harness.ts'
import {
  duringAttack,
  expectHealthy,
  type HealthStats,
  type IdleServer,
  idleHealth,
  loopDelayMaxMs,
  metricSum,
  metricsText,
  probeHealth,
  startIdleServer,
} from './abuseHarness.ts'
import {
  type AbuseNode,
  memoryOf,
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
 * Issue 33, "Done when": H1 and H2 together, against one real server process at the
 * server's own queue settings (QUEUE_SIZE 64, TENANT_QUEUE_SIZE 32). H1: three tenants
 * whose key sets hold hundreds of Galois elements keep searching with them (each search
 * used to reload the whole set: another tenant's median went 11.6 ms → 3,285 ms). H2: two
 * anonymous sessions from one address keep 2 × 34 searches in flight (another tenant got
 * 503 on 257 of 259 searches, and 3 workers were replaced). Meanwhile another tenant
 * searches: never refused, its median within 10× its idle median measured here, `/healthz`
 * under 500 ms, and no worker replaced nor job timed out (/metrics deltas).
 */

const FILE = 'bigKeysWithQueueFlood.e2e.test.ts'
/** Galois steps of each H1 tenant's key set: hundreds of elements (~175 MiB if loaded whole in a worker). */
const BIG_STEPS = 300
/** H1: tenants with big key sets, each on its own address. */
const BIG_TENANTS = ['127.0.0.101', '127.0.0.102', '127.0.0.103']
/** H1: searches each big tenant keeps in flight, and how many each in-flight slot sends. */
const BIG_IN_FLIGHT = 2
const BIG_ROUNDS = 6
/** H2: the address of the two anonymous sessions, the searches each keeps in flight (the 2 × 34), and rounds. */
const FLOODER = '127.0.0.111'
const FLOOD_IN_FLIGHT = 34
const FLOOD_ROUNDS = 3
/** The bounds: the victim's median vs its idle median, and `/healthz` (p99 of a probe every few ms). */
const VICTIM_MEDIAN_FACTOR = 10
const HEALTHZ_LIMIT_MS = 500

interface Attacker {
  address: string
  token: string
  keySet: string
  query: Uint8Array
}

describe('big key sets (H1) and one address flooding the queue (H2) at once', () => {
  let server: AbuseNode
  let idle: HealthStats
  let baseline: VictimStats
  let bigKeys: KeySet | undefined
  let bigClient: PrivateSearchClient | undefined
  let control: IdleServer | undefined
  const sides: SearchSide[] = []
  const big: Attacker[] = []
  const flooders: Attacker[] = []

  function search(attacker: Attacker): Promise<RawAnswer> {
    return requestFrom(server.url, attacker.address, {
      method: 'POST',
      path: `/api/v1/search?keySet=${attacker.keySet}`,
      token: attacker.token,
      headers: { 'content-type': 'application/octet-stream' },
      body: attacker.query,
    })
  }

  async function upload(address: string, token: string, id: string, body: Uint8Array): Promise<void> {
    const put = await requestFrom(server.url, address, {
      method: 'PUT',
      path: `/api/v1/keysets/${id}`,
      token,
      headers: { 'content-type': 'application/octet-stream' },
      body,
    })
    expect(put.status).toBe(201)
  }

  /** `inFlight` loops of `rounds` searches each, one after another; every answer. */
  async function keepSearching(attackers: Attacker[], inFlight: number, rounds: number): Promise<RawAnswer[]> {
    const answers: RawAnswer[] = []
    await Promise.all(
      attackers.flatMap((attacker) =>
        Array.from({ length: inFlight }, async () => {
          for (let round = 0; round < rounds; round++) answers.push(await search(attacker))
        }),
      ),
    )
    return answers
  }

  beforeAll(async () => {
    server = await startAbuseNode('big-keys-queue-flood', { REQUEST_TIMEOUT_MS: '120000' })
    const { database: _database, fingerprint: _fingerprint, ...config } = await server.client.searchConfig()
    const ctx = await getHeContext(config.params)
    // One big key set, uploaded by three tenants: each tenant's copy is its own in every
    // cache (tenant and content hash), and it is made once, so the setup stays quick.
    bigKeys = KeySet.generate(ctx, { galois: { steps: Array.from({ length: BIG_STEPS }, (_, i) => i + 1) } })
    bigClient = PrivateSearchClient.create(ctx, config, { keySet: bigKeys })
    const bigUpload = bigClient.evaluationKeys() as Uint8Array
    for (const address of BIG_TENANTS) {
      const token = await sessionFrom(server.url, address)
      await upload(address, token, 'big', bigUpload)
      big.push({ address, token, keySet: 'big', query: bigClient.encryptQuery([1, 2, 3, 4, 5, 6]) })
    }
    for (let i = 0; i < 2; i++) {
      const token = await sessionFrom(server.url, FLOODER)
      const side = await searchSide(server.client, ABUSE_DATABASE)
      sides.push(side)
      await upload(FLOODER, token, 'k', side.keys as Uint8Array)
      flooders.push({ address: FLOODER, token, keySet: 'k', query: side.query(i + 1).bytes })
    }
    baseline = await victimBaseline(server.victim, 7)
    idle = await idleHealth(server.url)
    control = await startIdleServer()
  }, 300_000)

  afterAll(async () => {
    for (const side of sides) side[Symbol.dispose]()
    bigClient?.dispose()
    bigKeys?.dispose()
    await control?.stop()
    await server?.stop()
  })

  it('another tenant is never refused, keeps its median, /healthz stays fast and no worker is killed', async () => {
    const before = await metricsText(server.url)
    const timedOut = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('sealbox_job_errors_total{') && line.includes('code="TIMEOUT"'))
        .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0)
    await loopDelayMaxMs(server.url)
    const pid = server.node.pid as number
    const rssBefore = memoryOf(pid).rss
    const attack = async () => {
      const [h1, h2] = await Promise.all([
        keepSearching(big, BIG_IN_FLIGHT, BIG_ROUNDS),
        keepSearching(flooders, FLOOD_IN_FLIGHT, FLOOD_ROUNDS),
      ])
      return { h1, h2 }
    }
    // The host's own share of a probe's latency, probed over the same attack.
    const controlProbe = probeHealth((control as IdleServer).url)
    const { result, health } = await duringAttack(server.url, () => victimDuring(server.victim, attack))
    const host = await controlProbe.stop()
    const loopMaxMs = await loopDelayMaxMs(server.url)
    const mib = (bytes: number) => Math.round(bytes / 2 ** 20)
    const memory = memoryOf(pid)
    const after = await metricsText(server.url)
    const { h1, h2 } = result.result
    const count = (answers: RawAnswer[], status: number) => answers.filter((answer) => answer.status === status).length
    // The attackers get searches or 503 + Retry-After, nothing else (no 5xx of the server's own).
    for (const answer of [...h1, ...h2]) {
      expect([200, 503]).toContain(answer.status)
      if (answer.status === 503) expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    // H1's searches loaded their two elements once per tenant, not the 300 on every search.
    const cold = h1.filter((answer) => String(answer.headers['server-timing']).includes('keydeserialize'))
    expect(cold.length).toBeLessThanOrEqual(BIG_TENANTS.length)
    const victim = result.victim
    const summary = `H1 ${count(h1, 200)} served, ${count(h1, 503)} × 503 (${cold.length} key loads); H2 ${count(h2, 200)} served, ${count(h2, 503)} × 503; other tenant 0 of ${victim.searches} refused, median ${victim.p50} ms (idle ${baseline.p50} ms), max ${victim.max} ms; /healthz p99 ${health.p99} ms, max ${health.max} ms (idle p99 ${idle.p99} ms; an idle process on this host, probed meanwhile: p99 ${host.p99} ms, max ${host.max} ms); server loop delay max ${loopMaxMs} ms; RSS ${mib(rssBefore)} → ${mib(memory.rss)} MiB (peak ${mib(memory.peak)} MiB)`
    console.log(summary)
    expect(victim.failed).toEqual({})
    expect(victim.searches).toBeGreaterThanOrEqual(3)
    expect(victim.p50).toBeLessThanOrEqual(VICTIM_MEDIAN_FACTOR * baseline.p50)
    expect(health.failures).toBe(0)
    // The probe's p99, not its single worst, beyond what the host's scheduler costs a probe
    // of a process doing nothing (measured over the same attack): on a host whose load
    // average is many times its cores, that alone can reach hundreds of ms.
    expect(health.p99).toBeLessThan(HEALTHZ_LIMIT_MS + host.p99)
    const delta = (name: string) => metricSum(after, name) - metricSum(before, name)
    expect(delta('sealbox_worker_replacements_total')).toBe(0)
    expect(timedOut(after) - timedOut(before)).toBe(0)
    expectHealthy({
      attack: 'H1 + H2: three tenants with 300-element key sets searching, 2 × 34 searches in flight from one address',
      test: `${FILE} › H1 and H2 together`,
      answer: summary,
      during: health,
      idle,
    })
  }, 600_000)
})
