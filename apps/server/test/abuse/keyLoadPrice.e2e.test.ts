import { exportGaloisKeys, getHeContext, type HeContext, KeySet } from '@sealbox/he-core'
import { parseServerTiming, SEALBOX_HEADERS } from '@sealbox/he-core/client'
import { PrivateSearchClient, type SearchConfig } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keyLoadUnits } from '../../src/executor/coldWorkCost.ts'
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

/*
 * Issue 33 H1: a key set of many Galois elements, too big for the key caches, made every
 * search reload all of it — 1.5–2 s of work priced as a cached search (56.5 units, ~12 ms).
 * Now a search loads only the Galois elements its queries use (and the caches hold just
 * those: with the key-switching kernel, as the kernel's words, made once at upload —
 * issue 31), a search whose keys no worker holds is charged their load by the size of
 * what is loaded (`x-sealbox-cost`), and a key set that cannot fit the caches is refused
 * at upload with a 422 naming the setting. Scaled down: 24-element sets under caches that
 * hold one whole set, not two, and a 40-element set above them.
 */

const FILE = 'keyLoadPrice.e2e.test.ts'
/** Galois steps of the attackers' sets: ~9 MiB loaded at n = 4096 (SEAL's form), ~14 MiB in a worker. */
const BIG_STEPS = 24
/** A set above both caches below: refused at upload. */
const HUGE_STEPS = 40
const MiB = 2 ** 20
/** Holds one big set whole and the victim's two elements, not two big sets. */
const KEY_CACHE_BYTES = 20 * MiB
/** Holds one big set's full form, not two. */
const KEY_BYTES_CACHE_BYTES = 12 * MiB
/** Rounds of the two attackers' alternating searches. */
const ROUNDS = 12
/** The search's kernel-form words per Galois element at n = 4096, 3 key-level primes (u32). */
const KERNEL_WORDS_PER_ELEMENT = 2 * 2 * 3 * 4096 * 4
/** The bound: the victim's median during the attack vs its idle median. */
const VICTIM_MEDIAN_FACTOR = 10

interface Attacker {
  address: string
  token: string
  keySet: KeySet
  client: PrivateSearchClient
  query: Uint8Array
}

describe('a search loads only the Galois keys it uses, priced when cold; an uncacheable key set is refused', () => {
  let server: AbuseNode
  let ctx: HeContext
  let config: SearchConfig
  let idle: HealthStats
  let baseline: VictimStats
  /** What the node's bytes cache grew by with the two attackers' uploads. */
  let uploadsCached: number
  const attackers: Attacker[] = []

  function put(address: string, token: string, id: string, body: Uint8Array): Promise<RawAnswer> {
    return requestFrom(server.url, address, {
      method: 'PUT',
      path: `/api/v1/keysets/${id}`,
      token,
      headers: { 'content-type': 'application/octet-stream' },
      body,
    })
  }

  function search(attacker: Attacker): Promise<RawAnswer> {
    return requestFrom(server.url, attacker.address, {
      method: 'POST',
      path: '/api/v1/search?keySet=big',
      token: attacker.token,
      headers: { 'content-type': 'application/octet-stream' },
      body: attacker.query,
    })
  }

  const bytesCacheBytes = async () => metricSum(await metricsText(server.url), 'sealbox_key_bytes_cache_bytes')

  beforeAll(async () => {
    server = await startAbuseNode('key-load-price', {
      KEY_CACHE_BYTES: String(KEY_CACHE_BYTES),
      KEY_BYTES_CACHE_BYTES: String(KEY_BYTES_CACHE_BYTES),
    })
    const { database: _database, fingerprint: _fingerprint, ...served } = await server.client.searchConfig()
    config = served
    ctx = await getHeContext(config.params)
    const cachedBefore = await bytesCacheBytes()
    for (const address of ['127.0.0.61', '127.0.0.62']) {
      const token = await sessionFrom(server.url, address)
      // Real keys: the search's steps and more, all from one secret key.
      const keySet = KeySet.generate(ctx, { galois: { steps: Array.from({ length: BIG_STEPS }, (_, i) => i + 1) } })
      const client = PrivateSearchClient.create(ctx, config, { keySet })
      const upload = await put(address, token, 'big', client.evaluationKeys() as Uint8Array)
      expect(upload.status).toBe(201)
      attackers.push({ address, token, keySet, client, query: client.encryptQuery([1, 2, 3, 4, 5, 6]) })
    }
    uploadsCached = (await bytesCacheBytes()) - cachedBefore
    baseline = await victimBaseline(server.victim, 7)
    idle = await idleHealth(server.url)
  }, 240_000)

  afterAll(async () => {
    for (const attacker of attackers) {
      attacker.client.dispose()
      attacker.keySet.dispose()
    }
    await server?.stop()
  })

  it('refuses at upload, 422 naming the setting, a key set larger than the key caches', async () => {
    using keySet = KeySet.generate(ctx, { galois: { steps: Array.from({ length: HUGE_STEPS }, (_, i) => i + 1) } })
    const address = '127.0.0.63'
    const token = await sessionFrom(server.url, address)
    const answer = await put(address, token, 'huge', exportGaloisKeys(keySet, { compression: 'packed' }))
    expect([answer.status, answer.code]).toEqual([422, 'LIMIT_EXCEEDED'])
    const error = answer.json.error as {
      message: string
      details: { setting: string; limit: number; keyBytes: number }
    }
    expect(['KEY_CACHE_BYTES', 'KEY_BYTES_CACHE_BYTES']).toContain(error.details.setting)
    expect(error.details.keyBytes).toBeGreaterThan(error.details.limit)
    expect(error.message).toMatch(new RegExp(`${HUGE_STEPS} Galois elements.*${error.details.setting}`))
    // Nothing was stored.
    const listed = await requestFrom(server.url, address, { method: 'GET', path: '/api/v1/keysets', token })
    expect((listed.json.keySets as unknown[]).length).toBe(0)
  })

  it("keeps only the search's Galois keys, as kernel words, and prices a cold load by the kernel form's bytes", async () => {
    // Each upload left the kernel form of the search's two elements (of its 24) in the
    // node's bytes cache: their words and a header, no SEAL form.
    const needed = config.galoisSteps.length
    expect(uploadsCached).toBeGreaterThanOrEqual(attackers.length * needed * KERNEL_WORDS_PER_ELEMENT)
    expect(uploadsCached).toBeLessThan(attackers.length * (needed * KERNEL_WORDS_PER_ELEMENT + 4096))
    const attacker = attackers[0] as Attacker
    const cold = await search(attacker)
    const warm = await search(attacker)
    expect([cold.status, warm.status]).toEqual([200, 200])
    // The first search copied the kernel form from the node's bytes cache: no store read.
    const coldTiming = parseServerTiming(String(cold.headers['server-timing']))
    expect(coldTiming.keyload).toBeUndefined()
    expect(coldTiming.keydeserialize).toBeGreaterThan(0)
    expect(parseServerTiming(String(warm.headers['server-timing'])).keydeserialize).toBeUndefined()
    // Charged its load, priced by what is loaded: the kernel form's bytes, not the stored set.
    const coldUnits = Number(cold.headers[SEALBOX_HEADERS.cost])
    const warmUnits = Number(warm.headers[SEALBOX_HEADERS.cost])
    const kernelFormBytes = uploadsCached / attackers.length
    // Charged units are whole: the difference is the load's price rounded either way.
    const load = keyLoadUnits({ storedBytes: 0, fullFormBytes: kernelFormBytes })
    expect(coldUnits - warmUnits).toBeGreaterThanOrEqual(Math.floor(load))
    expect(coldUnits - warmUnits).toBeLessThanOrEqual(Math.ceil(load))
  })

  it('two tenants searching with 24-element key sets: another tenant keeps its median', async () => {
    const attack = async () => {
      const answers: RawAnswer[] = []
      for (let round = 0; round < ROUNDS; round++) {
        for (const attacker of attackers) answers.push(await search(attacker))
      }
      return answers
    }
    const { result, health } = await duringAttack(server.url, () => victimDuring(server.victim, attack))
    const answers = result.result
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
    // Only the search's elements are loaded, so the two sets no longer evict each other.
    const cold = answers.filter((answer) => String(answer.headers['server-timing']).includes('keydeserialize'))
    expect(cold.length).toBeLessThanOrEqual(attackers.length)
    const victim = result.victim
    expect(victim.failed).toEqual({})
    expect(victim.p50).toBeLessThanOrEqual(VICTIM_MEDIAN_FACTOR * baseline.p50)
    const units = answers.map((answer) => Number(answer.headers[SEALBOX_HEADERS.cost]))
    expectHealthy({
      attack: 'key loads: two tenants with 24-element key sets, caches holding one',
      test: `${FILE} › two big key sets`,
      answer: `${answers.length} searches, ${cold.length} loaded keys (their 2 elements), priced ${Math.min(...units)}–${Math.max(...units)} units; other tenant 0 of ${victim.searches} refused, median ${victim.p50} ms (idle ${baseline.p50} ms)`,
      during: health,
      idle,
    })
  }, 300_000)
})
