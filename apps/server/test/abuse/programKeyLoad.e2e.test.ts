import {
  COST_UNIT_MS,
  decodeBatch,
  decrypt,
  exportEvaluationKeys,
  getHeContext,
  type HeContext,
  KeySet,
  type ProgramInput,
  withScope,
} from '@sealbox/he-core'
import { type EvaluateCallResult, SEALBOX_HEADERS, SealboxClient } from '@sealbox/he-core/client'
import { loadSealObject } from '@sealbox/he-core/envelope'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySwitchingKeyBytes } from '../../src/app/programAdmission.ts'
import { metricSum, metricsText } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode } from './abuseNode.ts'
import { encryptedInput, SMALL_BFV_PARAMS as params } from './abusePrograms.ts'

/*
 * Issue 33 H1, evaluate: a rotateRows(1) against an upload of 700 Galois elements loaded
 * all 700 (1.3–1.4 s each). Now an evaluate loads only the keys its program uses — its
 * rotations' Galois elements as SEAL resolves them, the relinearization key only if it
 * relinearizes — caches just those, and is priced for their load when no worker holds
 * them. Scaled down: 160 elements (~60 MiB loaded) under caches that would hold them all,
 * so the node's bytes cache shows what was loaded.
 */

/** Galois steps of the big key set (1 … BIG_STEPS), with a relinearization key. */
const BIG_STEPS = 160
/** A cold evaluate's price may be below its measured worker CPU by at most this factor. */
const UNDERPRICE_FACTOR = 2
const ROW = params.polyModulusDegree / 2

const rotateOne: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [{ op: 'rotateRows', a: 'x', steps: 1, out: 'r' }],
  outputs: ['r'],
}
const squareThenRotate: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [
    { op: 'multiply', a: 'x', b: 'x', out: 'm' },
    { op: 'relinearize', a: 'm', out: 'm2' },
    { op: 'rotateRows', a: 'm2', steps: 1, out: 'r' },
  ],
  outputs: ['r'],
}
const double: ProgramInput = {
  version: 1,
  inputs: [{ name: 'x', kind: 'ciphertext' }],
  steps: [{ op: 'add', a: 'x', b: 'x', out: 'r' }],
  outputs: ['r'],
}

describe('an evaluate loads only the keys its program uses of a big key set', () => {
  let server: AbuseNode
  let ctx: HeContext
  let keys: KeySet
  let client: SealboxClient
  let input: Uint8Array
  /** The `x-sealbox-cost` of the client's last answer. */
  let lastCost = 0

  const bytesCacheBytes = async () => metricSum(await metricsText(server.url), 'sealbox_key_bytes_cache_bytes')

  /** Runs `program` on [1, 2, 3] with the big key set; its decrypted first row and its price. */
  async function run(program: ProgramInput): Promise<{ result: EvaluateCallResult; row: number[]; units: number }> {
    const result = await client.evaluate({ params, program, inputs: { x: input }, keySet: 'big' })
    const units = lastCost
    const row = withScope((scope) => {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      loadSealObject(ciphertext, ctx, result.outputs.r as Uint8Array, { kind: 'ciphertext', keySetId: keys.id })
      return decodeBatch(ctx, decrypt(keys, ciphertext, scope))
        .slice(0, ROW)
        .map(Number)
    })
    return { result, row, units }
  }

  beforeAll(async () => {
    server = await startAbuseNode('program-key-load', {
      KEY_CACHE_BYTES: String(512 * 2 ** 20),
      KEY_BYTES_CACHE_BYTES: String(512 * 2 ** 20),
      REQUEST_TIMEOUT_MS: '120000',
    })
    ctx = await getHeContext(params)
    keys = KeySet.generate(ctx, { relin: true, galois: { steps: Array.from({ length: BIG_STEPS }, (_, i) => i + 1) } })
    input = encryptedInput(ctx, keys)
    const session = await server.client.createSession()
    const token = session.session.token
    client = new SealboxClient({
      baseUrl: server.url,
      retry: false,
      token,
      fetch: async (url, init) => {
        const response = await fetch(url, init)
        lastCost = Number(response.headers.get(SEALBOX_HEADERS.cost))
        return response
      },
    })
    await client.putKeySet('big', exportEvaluationKeys(keys, { compression: 'packed' }))
  }, 240_000)

  afterAll(async () => {
    keys?.dispose()
    await server?.stop()
  })

  it('rotateRows(1) loads one Galois element, is priced for it when cold, and rotates right', async () => {
    const cachedBefore = await bytesCacheBytes()
    const cold = await run(rotateOne)
    const grown = (await bytesCacheBytes()) - cachedBefore
    const warm = await run(rotateOne)
    // Oracle: the row [1, 2, 3, 0, …] rotated left by one.
    const expected = Array.from({ length: ROW }, (_, i) => [1, 2, 3][(i + 1) % ROW] ?? 0)
    expect(cold.row).toEqual(expected)
    expect(warm.row).toEqual(expected)
    expect(cold.result.timing.keydeserialize).toBeGreaterThan(0)
    expect(warm.result.timing.keydeserialize).toBeUndefined()
    // The node's bytes cache took one element's full form, not the set's 160 and its relinearization key.
    expect(grown).toBeGreaterThan(0)
    expect(grown).toBeLessThan(keySwitchingKeyBytes(ctx.params, 2))
    // Charged the load when cold, and not far under what it cost the worker.
    expect(cold.units).toBeGreaterThan(warm.units)
    expect(cold.units * COST_UNIT_MS * UNDERPRICE_FACTOR).toBeGreaterThanOrEqual(cold.result.timing.cpu ?? 0)
    console.log(
      `rotateRows(1) with ${BIG_STEPS} elements: cold ${cold.units} units (cpu ${cold.result.timing.cpu?.toFixed(0)} ms, keydeserialize ${cold.result.timing.keydeserialize?.toFixed(0)} ms), warm ${warm.units} units (cpu ${warm.result.timing.cpu?.toFixed(0)} ms); bytes cache +${(grown / 2 ** 20).toFixed(2)} MiB`,
    )
  })

  it('a program that relinearizes loads the relinearization key beside its element', async () => {
    const cachedBefore = await bytesCacheBytes()
    const { result, row } = await run(squareThenRotate)
    const grown = (await bytesCacheBytes()) - cachedBefore
    expect(result.timing.keydeserialize).toBeGreaterThan(0)
    expect(row).toEqual(Array.from({ length: ROW }, (_, i) => ([1, 2, 3][(i + 1) % ROW] ?? 0) ** 2))
    expect(grown).toBeGreaterThan(keySwitchingKeyBytes(ctx.params, 1))
    expect(grown).toBeLessThan(keySwitchingKeyBytes(ctx.params, 3))
  })

  it('a program that uses no key of the named set loads none', async () => {
    const cachedBefore = await bytesCacheBytes()
    const { result, row } = await run(double)
    expect(row.slice(0, 4)).toEqual([2, 4, 6, 0])
    expect(result.timing.keydeserialize).toBeUndefined()
    expect(result.timing.keyload).toBeUndefined()
    expect(await bytesCacheBytes()).toBe(cachedBefore)
  })
})
