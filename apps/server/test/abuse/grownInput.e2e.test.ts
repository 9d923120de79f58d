import { zstdCompressSync } from 'node:zlib'
import { encodeBatch, encryptSymmetric, getHeContext, KeySet, withScope } from '@sealbox/he-core'
import { encodeEvaluateRequest } from '@sealbox/he-core/client'
import { encodeEnvelope } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  duringAttack,
  evaluateRaw,
  expectHealthy,
  type HealthStats,
  idleHealth,
  metricSum,
  metricsText,
} from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode, type VictimStats, victimBaseline, victimDuring } from './abuseNode.ts'
import { SMALL_BFV_PARAMS } from './abusePrograms.ts'

/*
 * Grown inputs: SEAL accepts ciphertexts of up to 16 polynomials, and a nearly all-zero
 * one compresses to the size of a fresh one, while every program input is a fresh ciphertext of 2. Such
 * an input used to be inflated and loaded, and every step on it costs and holds memory as
 * for 8× the ciphertexts it was priced as. Now an input may have 2 polynomials: the
 * worker refuses it while inflating, at 2 polynomials' worth of bytes.
 */

const FILE = 'grownInput.e2e.test.ts'
/** Generous: the victim's slowest search during the attack, vs its idle median (plus a second). */
const VICTIM_FACTOR = 20

/**
 * A genuine fresh ciphertext's SEAL save rewritten to `size` polynomials (the extra ones
 * zero), zstd-compressed, as a ciphertext envelope.
 */
async function grownCiphertext(size: number): Promise<Uint8Array> {
  const ctx = await getHeContext(SMALL_BFV_PARAMS)
  using keys = KeySet.generate(ctx, {})
  const fresh = withScope((scope) => {
    const ct = encryptSymmetric(keys, encodeBatch(ctx, [1, 2, 3], scope), scope)
    return ct.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
  })
  const view = new DataView(fresh.buffer, fresh.byteOffset, fresh.byteLength)
  // Header (16), parms_id (32), is_ntt_form (1), size, n, coeff_modulus_size, scale, correction; data's header, count, data.
  const n = Number(view.getBigUint64(16 + 33 + 8, true))
  const k = Number(view.getBigUint64(16 + 33 + 16, true))
  const dataHeader = 16 + 73
  const coefficients = size * n * k
  const grown = new Uint8Array(dataHeader + 16 + 8 + coefficients * 8)
  grown.set(fresh.subarray(0, dataHeader + 16 + 8 + 2 * n * k * 8))
  const out = new DataView(grown.buffer)
  out.setBigUint64(8, BigInt(grown.length), true)
  out.setBigUint64(16 + 33, BigInt(size), true)
  out.setBigUint64(dataHeader + 8, BigInt(grown.length - dataHeader), true)
  out.setBigUint64(dataHeader + 16, BigInt(coefficients), true)
  const body = zstdCompressSync(grown.subarray(16))
  const payload = new Uint8Array(16 + body.length)
  payload.set(grown.subarray(0, 16))
  payload.set(body, 16)
  const header = new DataView(payload.buffer)
  header.setUint8(5, 2)
  header.setBigUint64(8, BigInt(payload.length), true)
  return encodeEnvelope({ kind: 'ciphertext', fingerprint: ctx.fingerprint, keySetId: keys.id, payload })
}

describe('a program input of more than 2 polynomials is refused while it is inflated', () => {
  let server: AbuseNode
  let idle: HealthStats
  let baseline: VictimStats

  beforeAll(async () => {
    server = await startAbuseNode('grown-input')
    baseline = await victimBaseline(server.victim)
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  it('x·x of a 16-polynomial, nearly all-zero input: 400 INVALID_ENVELOPE, heap flat, the victim keeps searching', async () => {
    const x = await grownCiphertext(16)
    // 16 polynomials (1 MiB in full) in the bytes of about two.
    expect(x.length).toBeLessThan(150_000)
    const body = encodeEvaluateRequest({
      params: SMALL_BFV_PARAMS,
      program: {
        version: 1,
        inputs: [{ name: 'x', kind: 'ciphertext' }],
        steps: [{ op: 'multiply', a: 'x', b: 'x', out: 'r' }],
        outputs: ['r'],
      },
      inputs: { x },
    })
    const token = (await server.client.createSession()).session.token
    const before = await metricsText(server.url)
    const { result, health } = await duringAttack(server.url, () =>
      victimDuring(server.victim, async () => {
        const answers = []
        for (let i = 0; i < 10; i++) answers.push(await evaluateRaw(server.url, token, body))
        return answers
      }),
    )
    for (const answer of result.result) {
      expect([answer.status, answer.json.error?.code]).toEqual([400, 'INVALID_ENVELOPE'])
      expect(answer.json.error?.message).toMatch(/inflates to more than \d+ bytes/)
    }
    const after = await metricsText(server.url)
    expect(metricSum(after, 'sealbox_worker_replacements_total')).toBe(
      metricSum(before, 'sealbox_worker_replacements_total'),
    )
    expect(metricSum(after, 'sealbox_worker_wasm_heap_bytes')).toBeLessThanOrEqual(
      metricSum(before, 'sealbox_worker_wasm_heap_bytes'),
    )
    expect(result.victim.failed).toEqual({})
    expect(result.victim.max).toBeLessThan(VICTIM_FACTOR * baseline.p50 + 1000)
    expectHealthy({
      attack: 'grown input',
      test: `${FILE} › 16-polynomial input ×10`,
      answer: `10× 400 INVALID_ENVELOPE (${x.length} B envelope), heap flat, victim max ${result.victim.max} ms (idle p50 ${baseline.p50})`,
      during: health,
      idle,
    })
  })
})
