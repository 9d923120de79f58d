import { getHeContext, KeySet } from '@sealbox/he-core'
import { PrivateSearchClient } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdWorker, queueState, type SearchSide, searchSide, untilQueue } from '../harness.ts'
import { metricSum, metricsText } from './abuseHarness.ts'
import { type AbuseNode, type RawAnswer, requestFrom, sessionFrom, startAbuseNode } from './abuseNode.ts'
import { ABUSE_DATABASE } from './abuseServer.ts'

/*
 * Issue 33 (Low): "Retry-After underestimates queued work" — it said 3 s while about two
 * minutes of work was queued. Here the queue is filled behind a held worker, the refused
 * request's Retry-After is read, the worker is released, and the time the queue really
 * takes to drain is measured by events (`/metrics`: nothing queued, nothing running).
 * Retry-After must not be under the real drain by more than UNDER_FACTOR, nor above it by
 * more than OVER_FACTOR (plus the one-second rounding of the header). Twice: with warm
 * searches, and with searches of a tenant whose key set of hundreds of Galois elements no
 * worker holds yet (the first one loads the keys; the others must not each be counted for
 * a load no worker will do again).
 */

/** Jobs waiting for the one worker (every one of them the flooder's). */
const QUEUE_SIZE = 24
/** Queries per search: each job a few hundred ms, so the drain is seconds, well above the header's 1 s grain. */
const QUERIES = 8
/** Searches one after another before each attack, so the server's measured throughput is the machine's now. */
const WARM_SEARCHES = 6
/** Retry-After may be below the real drain by at most this factor… */
const UNDER_FACTOR = 2
/** …and above it by at most this factor. */
const OVER_FACTOR = 3
const FLOODER = '127.0.0.91'
const HOLDER = '127.0.0.92'
const BIG_FLOODER = '127.0.0.93'
/** Galois steps of the cold flooder's key set. */
const BIG_STEPS = 200

interface Flooder {
  address: string
  token: string
  keySet: string
  body: Uint8Array
}

describe('Retry-After against the time the queue really takes to drain', () => {
  let server: AbuseNode
  let side: SearchSide
  let bigKeys: KeySet | undefined
  let bigClient: PrivateSearchClient | undefined
  let warm: Flooder
  let cold: Flooder

  const search = (flooder: Flooder) =>
    requestFrom(server.url, flooder.address, {
      method: 'POST',
      path: `/api/v1/search?keySet=${flooder.keySet}`,
      token: flooder.token,
      headers: { 'content-type': 'application/octet-stream' },
      body: flooder.body,
    })

  async function flooder(address: string, keys: Uint8Array, queries: Uint8Array[]): Promise<Flooder> {
    const token = await sessionFrom(server.url, address)
    const put = await requestFrom(server.url, address, {
      method: 'PUT',
      path: '/api/v1/keysets/k',
      token,
      headers: { 'content-type': 'application/octet-stream' },
      body: keys,
    })
    expect(put.status).toBe(201)
    return { address, token, keySet: 'k', body: new Uint8Array(Buffer.concat(queries)) }
  }

  /** Fills the queue with `who`'s searches behind a held worker; Retry-After, the measured drain. */
  async function fillAndDrain(who: Flooder): Promise<{ retryAfterMs: number; drainMs: number }> {
    // Searches one after another right before, so the server's measured throughput is the
    // machine's now (a shared machine's speed drifts between tests).
    for (let i = 0; i < WARM_SEARCHES; i++) expect((await search(warm)).status).toBe(200)
    const replacedBefore = metricSum(await metricsText(server.url), 'sealbox_worker_replacements_total')
    const held = await holdWorker(server.url, await sessionFrom(server.url, HOLDER))
    const flood = Array.from({ length: QUEUE_SIZE }, () => search(who))
    await untilQueue(server.url, (state) => state.queued === QUEUE_SIZE, 'the queue is full')
    const refused: RawAnswer = await search(who)
    expect([refused.status, refused.code]).toEqual([503, 'OVERLOADED'])
    const retryAfterMs = Number(refused.headers['retry-after']) * 1000
    // The drain starts when the worker is free: from the release to an empty, idle queue.
    const released = performance.now()
    await held.release()
    await untilQueue(server.url, (state) => state.queued === 0 && state.running === 0, 'the queue has drained')
    const drainMs = performance.now() - released
    const answers = await Promise.all(flood)
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
    expect((await held.done).status).toBe(200)
    expect(metricSum(await metricsText(server.url), 'sealbox_worker_replacements_total')).toBe(replacedBefore)
    expect(await queueState(server.url)).toEqual({ queued: 0, running: 0 })
    return { retryAfterMs, drainMs }
  }

  beforeAll(async () => {
    server = await startAbuseNode('retry-after', {
      QUEUE_SIZE: String(QUEUE_SIZE),
      TENANT_QUEUE_SIZE: String(QUEUE_SIZE),
      FAULT_INJECTION: 'true',
      REQUEST_TIMEOUT_MS: '300000',
    })
    side = await searchSide(server.client, ABUSE_DATABASE)
    const queries = Array.from({ length: QUERIES }, (_, i) => side.query(i + 1).bytes)
    warm = await flooder(FLOODER, side.keys as Uint8Array, queries)
    const { database: _database, fingerprint: _fingerprint, ...config } = await server.client.searchConfig()
    const ctx = await getHeContext(config.params)
    bigKeys = KeySet.generate(ctx, { galois: { steps: Array.from({ length: BIG_STEPS }, (_, i) => i + 1) } })
    bigClient = PrivateSearchClient.create(ctx, config, { keySet: bigKeys })
    const bigQueries = Array.from({ length: QUERIES }, (_, i) =>
      (bigClient as PrivateSearchClient).encryptQuery([i, 2, 3, 4, 5, 6]),
    )
    cold = await flooder(BIG_FLOODER, bigClient.evaluationKeys() as Uint8Array, bigQueries)
  }, 240_000)

  afterAll(async () => {
    side?.[Symbol.dispose]()
    bigClient?.dispose()
    bigKeys?.dispose()
    await server?.stop()
  })

  it(`warm searches: Retry-After is within ${UNDER_FACTOR}× under and ${OVER_FACTOR}× over the real drain`, async () => {
    const { retryAfterMs, drainMs } = await fillAndDrain(warm)
    console.log(
      `warm: Retry-After ${retryAfterMs / 1000} s; ${QUEUE_SIZE} searches of ${QUERIES} queries drained in ${(drainMs / 1000).toFixed(2)} s`,
    )
    expect(retryAfterMs * UNDER_FACTOR).toBeGreaterThanOrEqual(drainMs)
    expect(retryAfterMs).toBeLessThanOrEqual(OVER_FACTOR * drainMs + 1000)
  }, 300_000)

  it(`searches with ${BIG_STEPS}-element keys no worker holds: within the same factors`, async () => {
    const { retryAfterMs, drainMs } = await fillAndDrain(cold)
    console.log(
      `cold keys: Retry-After ${retryAfterMs / 1000} s; ${QUEUE_SIZE} searches of ${QUERIES} queries (the first loading the keys) drained in ${(drainMs / 1000).toFixed(2)} s`,
    )
    expect(retryAfterMs * UNDER_FACTOR).toBeGreaterThanOrEqual(drainMs)
    expect(retryAfterMs).toBeLessThanOrEqual(OVER_FACTOR * drainMs + 1000)
  }, 300_000)
})
