import { getHeContext, type HeContext } from '@sealbox/he-core'
import { KEY_LOAD_UNITS_PER_MIB, keyUploadCost, keyUploadSize, payloadLimitsOf } from '@sealbox/he-core/envelope'
import { minCompressedPayloadBytes } from '@sealbox/he-core/testing'
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
import { type PaddedKeys, paddedGaloisKeys } from './paddedKeys.ts'

/*
 * Key uploads priced and bounded by what they inflate to, not by their compressed bytes.
 * A genuine key cannot compress below its entropy, so an upload smaller than the keys its
 * meta lists is refused before it is inflated — but zero keys padded up to that floor
 * with random bytes (a skippable zstd frame) pass it, and inflate to about ten times the
 * upload: a 64 MiB body listing ~1,700 Galois elements of the server's own search
 * parameters becomes ~660 MB in the worker, loaded into SEAL. The server sizes every
 * upload from its headers and meta before anything is inflated (the elements' full size
 * under the search parameters): such an upload is refused above MAX_JOB_HEAP_BYTES with a
 * 422 naming it, before any worker time; a smaller one is priced at that size and
 * charged to its tenant.
 */

const FILE = 'paddedKeyUpload.e2e.test.ts'
const MiB = 2 ** 20
/** The body limit of a key upload (the server's default MAX_KEYSET_BYTES). */
const MAX_KEYSET_BYTES = 64 * MiB
/** Each tenant's cost budget on this server: far above a genuine key upload, below the small padded one's real size. */
const TENANT_BUDGET = 1000
/** Generous: the victim's slowest search during the attack, vs its idle median (plus the attack's own answer time). */
const VICTIM_FACTOR = 20
/** Elements of the small padded upload: ~75 MiB of keys, far inside MAX_JOB_HEAP_BYTES. */
const SMALL_ELEMENTS = 200
/** The victim's searches per attack: its own budget is TENANT_BUDGET too. */
const VICTIM_SEARCHES = 8

describe('a key upload padded to the entropy floor is priced and bounded by its inflated size', () => {
  let server: AbuseNode
  let ctx: HeContext
  let big: PaddedKeys
  let small: PaddedKeys
  let attacker: string
  let idle: HealthStats
  let baseline: VictimStats

  beforeAll(async () => {
    server = await startAbuseNode('paddedkeys', {
      TENANT_COST_BUDGET: String(TENANT_BUDGET),
      MAX_PROGRAM_COST: String(TENANT_BUDGET),
      // The victim and the attacker share 127.0.0.1: each keeps its own tenant budget.
      ADDRESS_COST_BUDGET: '1000000000',
    })
    ctx = await getHeContext(server.victim.side.config.params)
    const keySetId = server.victim.side.search.keySet.id
    // As many elements as a body at the limit can carry at the floor (envelope and meta aside).
    const perElement = minCompressedPayloadBytes('galoisKeys', payloadLimitsOf(ctx), 1)
    big = await paddedGaloisKeys(ctx, keySetId, Math.floor((MAX_KEYSET_BYTES - 256 * 1024) / perElement))
    small = await paddedGaloisKeys(ctx, keySetId, SMALL_ELEMENTS)
    attacker = (await server.client.createSession()).session.token
    baseline = await victimBaseline(server.victim)
    idle = await idleHealth(server.url)
  }, 300_000)

  afterAll(() => server?.stop())

  it('a 64 MiB upload listing ~1,700 elements: 422 naming MAX_JOB_HEAP_BYTES before any worker time, RSS far below its inflated size, the victim keeps searching', async () => {
    expect(big.envelope.length).toBeGreaterThan(60 * MiB)
    expect(big.envelope.length).toBeLessThanOrEqual(MAX_KEYSET_BYTES)
    expect(big.inflatedBytes).toBeGreaterThan(9 * big.envelope.length)
    const pid = server.node.pid as number
    const metricsBefore = await metricsText(server.url)
    const before = memoryOf(pid)
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(
        server.victim,
        async () => {
          const started = performance.now()
          const answer = await putKeySetRaw(server.url, attacker, 'padded', big.envelope)
          return { answer, ms: performance.now() - started }
        },
        { maxSearches: VICTIM_SEARCHES },
      ),
    )
    const after = memoryOf(pid)
    const growth = Math.max(after.peak, after.rss) - before.rss
    const { answer, ms } = result.result
    const error = answer.json.error as { code: string; message: string; details?: Record<string, unknown> }
    expect([answer.status, error?.code]).toEqual([422, 'LIMIT_EXCEEDED'])
    expect(error.message).toMatch(/MAX_JOB_HEAP_BYTES/)
    expect(error.message).toContain(`${big.elements.length.toLocaleString('en-US')} Galois elements its meta lists`)
    expect(error.details?.setting).toBe('MAX_JOB_HEAP_BYTES')
    expect(Number(error.details?.peakHeapBytes)).toBeGreaterThan(2 * big.inflatedBytes * 0.99)
    // Never inflated: the server holds the body (and a copy or two of it), not its keys.
    expect(growth).toBeLessThan(big.inflatedBytes / 2)
    // No worker time at all: no job ran, no worker grew or was replaced.
    const metricsAfter = await metricsText(server.url)
    for (const metric of ['sealbox_worker_replacements_total', 'sealbox_worker_wasm_heap_bytes']) {
      expect(metricSum(metricsAfter, metric), metric).toBe(metricSum(metricsBefore, metric))
    }
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + ms)
    expectHealthy({
      attack: 'padded key upload',
      test: `${FILE} › 64 MiB padded (${big.envelope.length} B → ${big.inflatedBytes} B)`,
      answer: `422 LIMIT_EXCEEDED (MAX_JOB_HEAP_BYTES) in ${Math.round(ms)} ms, RSS +${Math.round(growth / MiB)} MiB, victim max ${result.victim.max} ms (idle p50 ${baseline.p50})`,
      during: health,
      idle,
    })
  })

  it('a smaller padded upload is priced by its full size and charged to its tenant: past the budget, 429 before any worker time', async () => {
    const size = keyUploadSize(small.envelope, {
      load: {
        fingerprint: ctx.fingerprint,
        polyModulusDegree: ctx.params.polyModulusDegree,
        keyPrimeCount: ctx.coeffPrimes.length,
      },
      maxPolyModulusDegree: 16384,
    })
    expect(small.inflatedBytes).toBeGreaterThan(9 * small.envelope.length)
    // Its price follows the keys SEAL would load, about ten times its bytes.
    const price = keyUploadCost(size)
    expect(price).toBeGreaterThan((KEY_LOAD_UNITS_PER_MIB * small.inflatedBytes) / MiB)
    expect(price).toBeGreaterThan(TENANT_BUDGET)
    expect((KEY_LOAD_UNITS_PER_MIB * small.envelope.length) / MiB).toBeLessThan(TENANT_BUDGET / 5)
    const metricsBefore = await metricsText(server.url)
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(server.victim, () => putKeySetRaw(server.url, attacker, 'small', small.envelope), {
        maxSearches: VICTIM_SEARCHES,
      }),
    )
    const error = result.result.json.error as { code: string; message: string; details?: Record<string, unknown> }
    expect([result.result.status, error?.code]).toEqual([429, 'RATE_LIMITED'])
    expect(error.details).toMatchObject({ cost: Math.ceil(price), setting: 'TENANT_COST_BUDGET' })
    expect(error.message).toMatch(/this key upload costs about/)
    expect(result.victim.failed).toEqual({})
    const metricsAfter = await metricsText(server.url)
    expect(metricSum(metricsAfter, 'sealbox_worker_replacements_total')).toBe(
      metricSum(metricsBefore, 'sealbox_worker_replacements_total'),
    )
    // A genuine key set of the same parameters costs a few units and is stored.
    await server.victim.client.putKeySet('again', server.victim.side.keys as Uint8Array)
    expectHealthy({
      attack: 'padded key upload',
      test: `${FILE} › priced by its full size (${small.envelope.length} B → ${small.inflatedBytes} B)`,
      answer: `429 RATE_LIMITED, cost ${Math.ceil(price)} units of a ${TENANT_BUDGET} budget`,
      during: health,
      idle,
    })
  })
})
