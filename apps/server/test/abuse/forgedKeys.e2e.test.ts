import { exportEvaluationKeys, exportGaloisKeys, getHeContext, KeySet } from '@sealbox/he-core'
import { decodeBundle, decodeEnvelope, encodeBundle, encodeEnvelope } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchSide } from '../harness.ts'
import {
  duringAttack,
  expectHealthy,
  type HealthStats,
  healthzLimitMs,
  idleHealth,
  metricSum,
  metricsText,
  putKeySetRaw,
  rawRequest,
  recordAbuse,
} from './abuseHarness.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Forged key payloads: forged key payloads. SEAL 4.1 reserves memory for the key count a
 * Galois-key payload claims before checking it, so 136 bytes asked for 4 GiB and
 * killed the worker. Now he-core pre-parses every count against the bytes and the
 * parameters before SEAL sees the payload: 400 INVALID_ENVELOPE, no worker
 * replacement, the WASM heap unchanged, and other tenants keep searching.
 */

const FILE = 'forgedKeys.e2e.test.ts'

/** A Galois-key envelope whose SEAL payload is a header, a parms_id and a key count — nothing else. */
function forgedGaloisEnvelope(fingerprint: string, keySetId: string, count: bigint): Uint8Array {
  const payload = new Uint8Array(64)
  const view = new DataView(payload.buffer)
  view.setUint16(0, 0xa15e, true)
  view.setUint8(2, 16)
  view.setUint8(3, 4)
  view.setUint8(4, 1)
  view.setUint32(8, payload.length, true)
  view.setBigUint64(48, count, true)
  return encodeEnvelope({ kind: 'galoisKeys', fingerprint, keySetId, payload, meta: { elements: [3] } })
}

describe('forged key payloads (a real server process)', () => {
  let server: AbuseServer
  let side: SearchSide
  let idle: HealthStats

  beforeAll(async () => {
    server = await spawnAbuseServer({}, { name: 'keys' })
    side = await server.searchSide()
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('the 136-byte envelope claiming 357,913,900 keys, and 3e8 and 2^64 − 1, uploaded again and again: 400 each, no worker replaced, heap flat, readiness 200, another tenant keeps searching', async () => {
    const victim = (await server.client.createSession()).client
    await victim.putKeySet('search', side.keys as Uint8Array)
    const query = side.query(1)
    // Warm the worker (context, keys, first search) so the heap baseline is its working size.
    await victim.search(query.bytes, { keySet: 'search' })
    const attacker = (await server.client.createSession()).client
    const token = attacker.token as string
    const before = await metricsText(server.url)
    const forged = [357_913_900n, 300_000_000n, 2n ** 64n - 1n].map((count) =>
      forgedGaloisEnvelope(side.search.ctx.fingerprint, side.search.keySet.id, count),
    )
    expect(forged[0]?.length).toBe(136)

    let stop = false
    const victimSearches = (async () => {
      let ok = 0
      while (!stop) {
        const result = await victim.search(query.bytes, { keySet: 'search' })
        expect(result.responses).toHaveLength(1)
        ok++
      }
      return ok
    })()
    const { result, health } = await duringAttack(server.url, async () => {
      const answers: string[] = []
      const readiness: number[] = []
      for (let round = 0; round < 15; round++) {
        for (const body of forged) {
          const reply = await rawRequest(server.url, {
            method: 'PUT',
            path: `/api/v1/keysets/forged-${round}`,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/octet-stream',
              'content-length': body.length,
            },
            body,
          })
          answers.push(`${reply.status} ${(JSON.parse(reply.text) as { error?: { code: string } }).error?.code}`)
        }
        readiness.push((await fetch(`${server.url}/readyz`)).status)
      }
      stop = true
      return { answers, readiness, searches: await victimSearches }
    })
    expect(new Set(result.answers)).toEqual(new Set(['400 INVALID_ENVELOPE']))
    expect(result.answers).toHaveLength(45)
    expect(new Set(result.readiness)).toEqual(new Set([200]))
    expect(result.searches).toBeGreaterThan(0)
    const after = await metricsText(server.url)
    expect(metricSum(after, 'sealbox_worker_replacements_total')).toBe(
      metricSum(before, 'sealbox_worker_replacements_total'),
    )
    // The refusals happen before SEAL: the worker's WASM heap is what the warm searches left.
    expect(metricSum(after, 'sealbox_worker_wasm_heap_bytes')).toBe(metricSum(before, 'sealbox_worker_wasm_heap_bytes'))
    expect((await attacker.listKeySets()).keySets).toEqual([])
    expectHealthy({
      attack: 'forged key payloads',
      test: `${FILE} › forged 136-byte Galois envelope (357,913,900 / 3e8 / 2^64−1 keys) ×45`,
      answer: '400 INVALID_ENVELOPE',
      during: health,
      idle,
    })
  }, 120_000)

  it('Galois keys labelled relinKeys, and relin keys labelled galoisKeys: 400 INVALID_ENVELOPE', async () => {
    const tenant = (await server.client.createSession()).client
    const token = tenant.token as string
    const ctx = await getHeContext(side.config.params)
    using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
    // SEAL's own save (zstd): a packed payload says what it is, and no encoder labels it relinKeys.
    const galois = decodeEnvelope(exportGaloisKeys(keys, { compression: 'zstd' }), { kind: 'galoisKeys' })
    const asRelin = encodeEnvelope({
      kind: 'relinKeys',
      fingerprint: galois.fingerprint,
      keySetId: galois.keySetId as string,
      seeded: galois.seeded,
      payload: galois.payload,
    })
    const relin = decodeBundle(exportEvaluationKeys(keys)).items.find((item) => item.kind === 'relinKeys')
    if (!relin) throw new Error('no relinearization keys in the export')
    const asGalois = encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: relin.fingerprint,
      keySetId: relin.keySetId as string,
      seeded: relin.seeded,
      payload: relin.payload,
      meta: { elements: [3] },
    })
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (const [name, body] of [
        ['galois-as-relin', asRelin],
        ['relin-as-galois', asGalois],
      ] as const) {
        const reply = await putKeySetRaw(server.url, token, name, body)
        answers.push([reply.status, reply.json.error?.code, reply.json.error?.message])
      }
      return answers
    })
    expect(result[0]?.slice(0, 2)).toEqual([400, 'INVALID_ENVELOPE'])
    // Seeded zstd Galois keys inflate past the largest relinKeys these parameters allow (uncompressed,
    // the key-list count says "this looks like Galois keys"; checkSealPayload.test.ts covers that).
    expect(result[0]?.[2]).toMatch(/relinKeys/)
    expect(result[1]?.slice(0, 2)).toEqual([400, 'INVALID_ENVELOPE'])
    expect(health.p99).toBeLessThan(healthzLimitMs(idle))
    recordAbuse({
      attack: 'forged key payloads',
      test: `${FILE} › Galois keys labelled relinKeys (and the reverse)`,
      answer: '400 INVALID_ENVELOPE',
      during: health,
      idle,
    })
  }, 60_000)

  it('keys for other parameters are verified in full without SEAL: genuine ones stored (n recorded), forged ones refused', async () => {
    const tenant = (await server.client.createSession()).client
    const token = tenant.token as string
    const other = await getHeContext({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { value: 65537 } })
    expect(other.fingerprint).not.toBe(side.search.ctx.fingerprint)
    using keys = KeySet.generate(other, { relin: true, galois: { steps: [1, 2] } })
    const genuine = exportEvaluationKeys(keys)
    const stored = await tenant.putKeySet('other-params', genuine)
    expect(stored.keySet).toMatchObject({ fingerprint: other.fingerprint, polyModulusDegree: 4096 })
    expect(stored.keySet.kinds).toEqual(['relinKeys', 'galoisKeys'])

    // The same bundle with the Galois keys' count forged (uncompressed copy, so the count is at a known offset).
    const items = decodeBundle(genuine).items
    const galois = items.find((item) => item.kind === 'galoisKeys')
    if (!galois) throw new Error('no Galois keys in the export')
    const uncompressed = keys.galoisKeys?.saveToArray(other.seal.ComprModeType.none) as Uint8Array
    const forgedCount = uncompressed.slice()
    new DataView(forgedCount.buffer).setBigUint64(48, 357_913_900n, true)
    const forgedKeys = encodeBundle([
      encodeEnvelope({
        kind: 'galoisKeys',
        fingerprint: other.fingerprint,
        keySetId: keys.id,
        payload: forgedCount,
        meta: galois.meta as { elements: number[] },
      }),
    ])
    const wrongElements = encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: other.fingerprint,
      keySetId: keys.id,
      payload: uncompressed,
      meta: { elements: [3, 5, 7] },
    })
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = []
      for (const [name, body] of [
        ['forged-count', forgedKeys],
        ['wrong-elements', wrongElements],
        ['forged-136', forgedGaloisEnvelope(other.fingerprint, keys.id, 357_913_900n)],
      ] as const) {
        const reply = await putKeySetRaw(server.url, token, name, body)
        answers.push(`${reply.status} ${reply.json.error?.code}`)
      }
      return answers
    })
    expect(result).toEqual(['400 INVALID_ENVELOPE', '400 INVALID_ENVELOPE', '400 INVALID_ENVELOPE'])
    expect((await tenant.listKeySets()).keySets.map((k) => k.id)).toEqual(['other-params'])
    expect(health.p99).toBeLessThan(healthzLimitMs(idle))
    recordAbuse({
      attack: 'forged key payloads',
      test: `${FILE} › keys for other parameters: forged count / elements / 136-byte envelope`,
      answer: '400 INVALID_ENVELOPE',
      during: health,
      idle,
    })
  }, 60_000)
})
