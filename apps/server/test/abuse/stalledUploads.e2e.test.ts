import { type ClientRequest, request as httpRequest } from 'node:http'
import { waitFor } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  duringAttack,
  HEALTHZ_P99_LIMIT_MS,
  type HealthStats,
  healthzLimitMs,
  idleHealth,
  loopDelayMaxMs,
  metricSum,
  metricsText,
  putKeySetRaw,
  recordAbuse,
} from './abuseHarness.ts'
import {
  type AbuseNode,
  memoryOf,
  requestFrom,
  sessionFrom,
  startAbuseNode,
  type VictimStats,
  victimBaseline,
  victimDuring,
} from './abuseNode.ts'

/*
 * Stalled uploads (issue 33, M1). A body was buffered whole before any check that prices
 * it (the tenant's quota, the anonymous storage cap): one free session opened 40 PUTs,
 * each sending 60 MiB of a 64 MiB body and stalling, and the node's RSS went 956 → 3,314 MiB
 * and stayed there. Now each body reserves its bytes before it is read, against its
 * address's, its tenant's and the node's bound (ADDRESS_RECEIVING_BYTES,
 * TENANT_RECEIVING_BYTES, RECEIVING_BYTES): the uploads past the bound are refused at once,
 * unread, and the reservation is freed when the connection ends.
 */

const FILE = 'stalledUploads.e2e.test.ts'
const MiB = 2 ** 20
/** The attack: 40 uploads, each declaring 64 MiB and sending 60 MiB of it. */
const UPLOADS = 40
const DECLARED = 64 * MiB
const SENT = 60 * MiB
/** The attacker's own loopback address (per-address bounds; the victim uses 127.0.0.1). */
const ATTACKER = '127.0.0.2'
const RSS_GROWTH_LIMIT = 300 * MiB
const VICTIM_FACTOR = 20
/** How far above the suite's /healthz bound one probe may be delayed on the test's own side. */
const PROBE_OUTLIER_FACTOR = 3

/** One stalled upload: its answer once the server sends one (a refusal), or how the connection ended. */
interface StalledUpload {
  request: ClientRequest
  answer: Promise<{ status: number; code?: string; headers: Record<string, string | string[] | undefined> } | 'reset'>
  settled: boolean
}

/** A PUT declaring `declared` bytes (or chunked when undefined) that sends `chunks` and then stalls. */
function stalledUpload(
  url: string,
  token: string,
  id: string,
  declared: number | undefined,
  chunks: readonly Buffer[],
): StalledUpload {
  const headers: Record<string, string | number> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/octet-stream',
  }
  if (declared !== undefined) headers['content-length'] = declared
  const request = httpRequest(new URL(`/api/v1/keysets/${id}`, url), {
    method: 'PUT',
    headers,
    localAddress: ATTACKER,
    agent: false,
  })
  const upload: StalledUpload = { request, answer: Promise.resolve('reset'), settled: false }
  upload.answer = new Promise((resolve) => {
    request.on('response', (res) => {
      const body: Buffer[] = []
      res.on('data', (chunk: Buffer) => body.push(chunk))
      res.on('end', () => {
        upload.settled = true
        const text = Buffer.concat(body).toString()
        let code: string | undefined
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code
        } catch {
          code = undefined
        }
        resolve({ status: res.statusCode ?? 0, ...(code ? { code } : {}), headers: res.headers })
      })
    })
    request.on('error', () => {
      upload.settled = true
      resolve('reset')
    })
  })
  request.flushHeaders()
  for (const chunk of chunks) request.write(chunk)
  return upload
}

async function receiving(url: string) {
  const text = await metricsText(url)
  return {
    bodies: metricSum(text, 'sealbox_receiving_bodies'),
    reserved: metricSum(text, 'sealbox_receiving_reserved_bytes'),
    arrived: metricSum(text, 'sealbox_receiving_arrived_bytes'),
    refused: metricSum(text, 'sealbox_receiving_refused_total'),
  }
}

describe('stalled uploads hold a bounded number of bytes', () => {
  let server: AbuseNode
  let idle: HealthStats
  let baseline: VictimStats
  const body = Buffer.alloc(SENT, 0x5a)

  beforeAll(async () => {
    // Stalled bodies must stay stalled while the test measures: the deadline is the test's.
    server = await startAbuseNode('stalled-uploads', { REQUEST_TIMEOUT_MS: '300000' })
    baseline = await victimBaseline(server.victim)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('40 PUTs sending 60 of 64 MiB and stalling: most refused unread, RSS grows < 300 MiB, others served', async () => {
    const token = await sessionFrom(server.url, ATTACKER)
    const pid = server.node.pid as number
    const before = memoryOf(pid)
    // Read once to restart the server's own loop-delay histogram (it restarts at every scrape).
    await loopDelayMaxMs(server.url)
    const uploads: StalledUpload[] = []
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(server.victim, async () => {
        for (let i = 0; i < UPLOADS; i++) uploads.push(stalledUpload(server.url, token, `big${i}`, DECLARED, [body]))
        // Every upload is either answered (refused) or admitted with all it sent arrived.
        await waitFor(
          'each upload refused, or admitted with its 60 MiB arrived',
          async () => {
            const now = await receiving(server.url)
            const open = uploads.filter((upload) => !upload.settled).length
            // The victim's search in flight (a body well under 1 MiB) may be counted too.
            return now.bodies >= open && now.bodies <= open + 1 && now.arrived >= open * SENT
          },
          120_000,
        )
        const held = memoryOf(pid)
        const loopMs = await loopDelayMaxMs(server.url)
        // Another tenant from the attacker's own address still uploads (a small, real key set).
        const neighbour = await sessionFrom(server.url, ATTACKER)
        const neighbourPut = await requestFrom(server.url, ATTACKER, {
          method: 'PUT',
          path: '/api/v1/keysets/k',
          token: neighbour,
          body: server.victim.side.keys as Uint8Array,
        })
        return { held, loopMs, neighbourPut, metrics: await receiving(server.url) }
      }),
    )
    const answers = await Promise.all(uploads.filter((upload) => upload.settled).map((upload) => upload.answer))
    const admitted = uploads.length - answers.length
    for (const upload of uploads) upload.request.destroy()

    // The tenant's bound (128 MiB) admits two 64 MiB bodies; every other one is refused unread.
    expect(admitted).toBe(2)
    for (const answer of answers) {
      expect(answer).not.toBe('reset')
      if (answer === 'reset') continue
      expect(answer.status).toBe(429)
      expect(answer.code).toBe('RATE_LIMITED')
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(answer.headers.connection).toBe('close')
    }
    // The server's own event loop never waited for the attack (its delay, not the probe's).
    expect(result.result.loopMs).toBeLessThan(HEALTHZ_P99_LIMIT_MS)
    const growth = result.result.held.rss - before.rss
    expect(growth).toBeLessThan(RSS_GROWTH_LIMIT)
    expect(result.result.neighbourPut.status).toBe(201)
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + 1000)

    // Ending the connections frees what they held: the same tenant may upload again.
    await waitFor('the stalled bodies released', async () => (await receiving(server.url)).bodies === 0, 60_000)
    expect((await receiving(server.url)).reserved).toBe(0)
    const again = await putKeySetRaw(server.url, token, 'k', server.victim.side.keys as Uint8Array)
    expect(again.status).toBe(201)

    // The probe's p99 is held to PROBE_OUTLIER_FACTOR × the suite's bound, not the bound
    // itself: the attack's 2.4 GB are written by this test process, where the prober's
    // thread runs too, and on a loaded two-core machine the probe waits for a core there
    // (measured at load 25: probe p99 0.8–1.4 s while the server's own loop delay max was 20 ms,
    // held to the liveness bound above). A server that buffered the bodies stalls far beyond it.
    expect(health.failures).toBe(0)
    expect(health.p99).toBeLessThan(PROBE_OUTLIER_FACTOR * healthzLimitMs(idle))
    recordAbuse({
      attack: `M1 ${UPLOADS} stalled PUTs (${SENT / MiB} of ${DECLARED / MiB} MiB each)`,
      test: FILE,
      answer: `${admitted} admitted, ${answers.length} × 429 unread; RSS ${Math.round(before.rss / MiB)} → ${Math.round(result.result.held.rss / MiB)} MiB (+${Math.round(growth / MiB)}); victim p50 ${result.victim.p50} ms, max ${result.victim.max} ms; server loop delay max ${result.result.loopMs} ms (before, same machine with the bound off: RSS 235 → 2,635 MiB, all 40 held; the issue saw 956 → 3,314 MiB)`,
      during: health,
      idle,
    })
  })

  it('a chunked body is counted as it streams: refused mid-body past the tenant bound', async () => {
    const token = await sessionFrom(server.url, ATTACKER)
    const chunks = Array.from({ length: 60 }, (_, i) => body.subarray(i * MiB, (i + 1) * MiB))
    // Two 60 MiB bodies fit the tenant's 128 MiB; the third is refused once it passes it.
    const admitted = [stalledUpload(server.url, token, 'c1', undefined, chunks)]
    await waitFor('the first chunked body arrived', async () => (await receiving(server.url)).arrived === SENT, 60_000)
    admitted.push(stalledUpload(server.url, token, 'c2', undefined, chunks))
    await waitFor('the second one arrived', async () => (await receiving(server.url)).arrived === 2 * SENT, 60_000)
    const third = stalledUpload(server.url, token, 'c3', undefined, chunks)
    await waitFor('the third chunked body refused past 128 MiB', () => third.settled, 60_000)
    const answer = await third.answer
    expect(answer).not.toBe('reset')
    if (answer !== 'reset') {
      expect(answer.status).toBe(429)
      expect(answer.code).toBe('RATE_LIMITED')
      expect(answer.headers.connection).toBe('close')
    }
    // A body past the route's limit is still 413 (not 429) while the tenant's bound is taken.
    const oversized = await stalledUpload(server.url, token, 'c4', DECLARED + MiB, []).answer
    expect(oversized === 'reset' ? 'reset' : [oversized.status, oversized.code]).toEqual([413, 'PAYLOAD_TOO_LARGE'])
    await waitFor('the refused bodies released', async () => (await receiving(server.url)).bodies === 2, 60_000)
    const now = await receiving(server.url)
    expect(now.reserved).toBe(2 * SENT)
    expect(admitted.map((upload) => upload.settled)).toEqual([false, false])
    for (const upload of admitted) upload.request.destroy()
    await waitFor('the chunked bodies released', async () => (await receiving(server.url)).bodies === 0, 60_000)
  })
})
