import type { Ciphertext } from 'node-seal/throws'
import { describe, expect, it } from 'vitest'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { checkPackedLayout, packedCiphertextBytes } from '../envelope/packedCiphertext.ts'
import { packSealCiphertext, unpackSealCiphertext } from '../envelope/packSealCiphertext.ts'
import { HeError } from '../errors/HeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { type SealScope, withScope } from '../scope/SealScope.ts'
import { heErrorOf } from '../testing/forgedEnvelopes.ts'
import { responsePhaseNorm } from '../testing/responsePhaseNorm.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig, type SearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { searchResponseDroppedBits } from './searchResponseDroppedBits.ts'
import { searchFixture } from './searchTestKit.ts'
import { decodeSearchResponse, encodeSearchResponse } from './searchWire.ts'
import { mulberry32 } from './seededRandom.ts'
import { syntheticSearchQuery } from './syntheticSearchDatabase.ts'

function blocksOf(ctx: HeContext, client: PrivateSearchClient, config: SearchConfig, response: Uint8Array) {
  return decodeSearchResponse(response, {
    fingerprint: ctx.fingerprint,
    keySetId: client.keySet.id,
    configId: config.configId,
    blockCount: config.blocks.length,
  }).blocks
}

function loaded(ctx: HeContext, scope: SealScope, envelope: Envelope<'ciphertext'>): Ciphertext {
  const ciphertext = scope.track(new ctx.seal.Ciphertext())
  loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
  return ciphertext
}

/** SEAL's uncompressed save of a one-prime ciphertext in coefficient form: what the server rounds. */
function coefficientSave(ctx: HeContext, scope: SealScope, ciphertext: Ciphertext): Uint8Array {
  const coefficients = scope.track(new ctx.seal.Ciphertext())
  ctx.evaluator.cipherTransformFromNtt(ciphertext, coefficients)
  return coefficients.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
}

describe('responses drop the low-order bits the noise bound allows, and every score stays exact', () => {
  // The default configs: Apple's shape, the benchmark's 10k rows, and n4096-wide from D' = 512.
  const shapes: [rows: number, dimension: number, bits: [number, number]][] = [
    [4096, 128, [8, 0]],
    [10_000, 16, [9, 0]],
    [10_000, 384, [12, 0]],
  ]
  for (const [rows, dimension, bits] of shapes) {
    it(`V = ${rows}, D = ${dimension}: c0 drops ${bits[0]} bits, c1 ${bits[1]}`, async () => {
      using fixture = await searchFixture({ rows, dimension })
      const { ctx, config, client, index, database, keys } = fixture
      expect(config.responseCompression).toBe('packed')
      expect(index.responseDroppedBits.bits).toEqual(bits)
      expect(client.responseDroppedBits.bits).toEqual(bits)
      const query = syntheticSearchQuery(dimension, rows + dimension)
      const { response } = index.evaluate(client.encryptQuery(query), keys)
      const result = client.decryptScores(response)
      const oracle = plaintextSearchScores(config, database, query)
      expect(oracle.findIndex((score, row) => result.scores[row] !== score)).toBe(-1)
      expect(result.strayNonZeroSlots).toBe(0)
      expect(result.minNoiseBudget).toBeGreaterThan(0)
      // The byte model's estimate counts the dropped bits (within 1 % of the real response).
      expect(Math.abs((config.estimate?.responseBytes ?? 0) / response.byteLength - 1)).toBeLessThan(0.01)
      const n = ctx.params.polyModulusDegree
      const width = ctx.facts.coeffModulusBits[0] as number
      for (const { envelope } of blocksOf(ctx, client, config, response)) {
        const shape = checkPackedLayout(envelope.payload, 'INVALID_ENVELOPE')
        expect(shape.dropped).toEqual(bits)
        expect(envelope.payload.length).toBe(packedCiphertextBytes(2, n, [width], bits))
        expect(envelope.payload.length).toBe(packedCiphertextBytes(2, n, [width]) - ((bits[0] + bits[1]) * n) / 8)
      }
    })
  }

  it('with droppedBits: false (a request that did not accept them) every block keeps every bit, same scores', async () => {
    using fixture = await searchFixture({ rows: 10_000, dimension: 16 })
    const { ctx, config, client, index, database, keys } = fixture
    expect(index.responseDroppedBits.bits).toEqual([9, 0])
    const query = syntheticSearchQuery(16, 77)
    const encrypted = client.encryptQuery(query)
    const full = index.evaluate(encrypted, keys, { droppedBits: false }).response
    const dropped = index.evaluate(encrypted, keys, { droppedBits: true }).response
    const n = ctx.params.polyModulusDegree
    const width = ctx.facts.coeffModulusBits[0] as number
    for (const { envelope } of blocksOf(ctx, client, config, full)) {
      expect(checkPackedLayout(envelope.payload, 'INVALID_ENVELOPE').dropped).toEqual([0, 0])
      expect(envelope.payload.length).toBe(packedCiphertextBytes(2, n, [width]))
    }
    expect(full.byteLength - dropped.byteLength).toBe((config.blocks.length * 9 * n) / 8)
    const oracle = plaintextSearchScores(config, database, query)
    for (const response of [full, dropped]) {
      const result = client.decryptScores(response)
      expect(oracle.findIndex((score, row) => result.scores[row] !== score)).toBe(-1)
      expect(result.strayNonZeroSlots).toBe(0)
    }
  })

  it("the key-switching kernel's coefficient form is SEAL's inverse NTT, word for word", async () => {
    // The same query through the kernel's transforms and through SEAL's: byte-identical blocks.
    using fixture = await searchFixture({ rows: 10_000, dimension: 16 })
    const { ctx, config, client, index, database, keys } = fixture
    expect(index.kernel).toBe('keySwitch')
    const plain = resolveSearchConfig({ rows: 10_000, dimension: 16, responseCompression: 'none' })
    using unrounded = PrivateSearchIndex.process(ctx, database, plain)
    const query = client.encryptQuery(syntheticSearchQuery(16, 3))
    const kernelBlocks = blocksOf(ctx, client, config, index.evaluate(query, keys).response)
    const sealBlocks = blocksOf(ctx, client, plain, unrounded.evaluate(query, keys).response)
    expect(kernelBlocks).toHaveLength(sealBlocks.length)
    withScope((scope) => {
      for (const [i, { envelope }] of sealBlocks.entries()) {
        const save = coefficientSave(ctx, scope, loaded(ctx, scope, envelope))
        const packed = packSealCiphertext(ctx, save, { dropBits: index.responseDroppedBits.bits })
        expect(kernelBlocks[i]?.envelope.payload).toEqual(packed)
      }
    })
  })

  it('the client refuses a response that drops more bits than the rule, before SEAL sees it', async () => {
    using fixture = await searchFixture({ rows: 4096, dimension: 128 })
    const { ctx, config, client, index, keys } = fixture
    const [k0] = index.responseDroppedBits.bits
    const { response } = index.evaluate(client.encryptQuery(syntheticSearchQuery(128, 5)), keys)
    const [block] = blocksOf(ctx, client, config, response)
    if (!block) throw new HeError('INTERNAL', 'one block')
    for (const dropBits of [
      [k0 + 1, 0],
      [k0, 1],
    ] as [number, number][]) {
      const payload = withScope((scope) =>
        packSealCiphertext(ctx, coefficientSave(ctx, scope, loaded(ctx, scope, block.envelope)), { dropBits }),
      )
      const forged = encodeSearchResponse(
        { fingerprint: ctx.fingerprint, keySetId: client.keySet.id, configId: config.configId },
        [{ index: 0, payload, seeded: false, level: 0 }],
      )
      const error = heErrorOf(() => client.decryptScores(forged))
      expect(error.code).toBe('INVALID_ENVELOPE')
      expect(error.message).toMatch(/allows at most/)
    }
  })

  it('BFV and unpacked responses keep every bit, and say why', async () => {
    for (const input of [
      { rows: 100, dimension: 16, scheme: 'bfv' as const },
      { rows: 100, dimension: 16, responseCompression: 'zstd' as const },
    ]) {
      const config = resolveSearchConfig(input)
      const rule = searchResponseDroppedBits(await getHeContext(config.params), config)
      expect(rule.bits).toEqual([0, 0])
      expect(rule.reason).toMatch(/BGV|packed/)
    }
  })
})

/** V = 4096 rows (one full block: every diagonal summed) of norm R = 1 with every coordinate ±1/√D. */
function extremeDatabase(rows: number, dimension: number, seed: number): SearchDatabase {
  const random = mulberry32(seed)
  const value = 1 / Math.sqrt(dimension)
  const vectors = Float64Array.from({ length: rows * dimension }, () => (random() < 0.5 ? -value : value))
  return { rows, dimension, vectors, ids: Array.from({ length: rows }, (_, row) => row) }
}

describe('worst noise: the largest-noise responses the default profiles allow', () => {
  // Dot products at maxNorm 1 with the largest scale, every coordinate at full magnitude, one
  // unfolded block (all D' diagonals), server-side baby steps chained by 1 and the giant steps:
  // n4096 at its largest D' (256) and at Apple's shape, n4096-wide at the largest D' of n = 4096.
  // `refusedAt`: the fewest extra bits whose restored phase passes q/4 (no budget left: the
  // client refuses); `wrongAt`: the fewest that decrypt a slot wrong.
  const cases = [
    { params: 'n4096' as const, dimension: 256, bits: 5, refusedAt: 5, wrongAt: 6 },
    { params: 'n4096' as const, dimension: 128, bits: 8, refusedAt: 2, wrongAt: 3 },
    { params: 'n4096-wide' as const, dimension: 2048, bits: 12, refusedAt: 1, wrongAt: 2 },
  ]
  for (const { params, dimension, bits, refusedAt, wrongAt } of cases) {
    it(`${params}, D = ${dimension}: the measured noise stays under the bound; ${refusedAt} bit(s) more are refused, ${wrongAt} break`, async () => {
      const rows = 4096
      // Uncompressed: the test gets the unrounded response and rounds it as the server would.
      const config = resolveSearchConfig({
        rows,
        dimension,
        params,
        metric: 'dot',
        maxNorm: 1,
        babySteps: 'server',
        responseCompression: 'none',
      })
      const ctx = await getHeContext(config.params)
      const rule = searchResponseDroppedBits(ctx, { ...config, responseCompression: 'packed' })
      expect(rule.bits).toEqual([bits, 0])
      const database = extremeDatabase(rows, dimension, dimension)
      using index = PrivateSearchIndex.process(ctx, database, config)
      using client = PrivateSearchClient.create(ctx, config)
      const keyBytes = client.evaluationKeys()
      if (!keyBytes) throw new HeError('INTERNAL', 'server-side baby steps need Galois keys')
      using keys = EvaluationKeys.load(ctx, keyBytes)
      expect(config.babyStep).toBeGreaterThan(1)
      expect(config.giantSteps).toBeGreaterThan(1)
      const query = extremeDatabase(1, dimension, dimension + 1).vectors
      const { response } = index.evaluate(client.encryptQuery(query), keys)
      const oracle = plaintextSearchScores(config, database, query)
      expect(client.decryptScores(response).scores).toEqual(Float64Array.from(oracle))
      const [block] = blocksOf(ctx, client, config, response)
      if (!block) throw new HeError('INTERNAL', 'one block')
      const t = ctx.plainModulus as bigint
      const q = ctx.coeffPrimes[0] as bigint
      const secretKey = client.keySet.secretKey
      const decryptor = client.keySet.decryptor
      const encoder = ctx.batchEncoder
      if (!encoder) throw new HeError('INTERNAL', 'BGV batches')
      withScope((scope) => {
        const decrypt = (ciphertext: Ciphertext) => {
          const plaintext = scope.track(new ctx.seal.Plaintext())
          decryptor.decrypt(ciphertext, plaintext)
          return encoder.decodeBigInt64(plaintext) as BigInt64Array
        }
        const original = loaded(ctx, scope, block.envelope)
        const expected = decrypt(original)
        // The response's own noise: ‖e‖ = ‖phase‖ / t, within the rule's bound.
        const measured = Number(responsePhaseNorm(ctx, secretKey, original)) / Number(t)
        expect(measured).toBeLessThanOrEqual(rule.noiseBound)
        const save = coefficientSave(ctx, scope, original)
        const restoredWith = (k0: number) => {
          const ciphertext = scope.track(new ctx.seal.Ciphertext())
          const packed = packSealCiphertext(ctx, save, { dropBits: [k0, 0] })
          ciphertext.loadFromArray(ctx.context, unpackSealCiphertext(ctx, packed, false))
          return {
            norm: responsePhaseNorm(ctx, secretKey, ciphertext),
            budget: decryptor.invariantNoiseBudget(ciphertext),
            right: decrypt(ciphertext).every((slot, i) => slot === expected[i]),
          }
        }
        // The rule's bits: the phase stays below q/4 (a bit of budget left), every slot as before.
        const kept = restoredWith(bits)
        expect(kept.norm * 4n).toBeLessThan(q)
        expect(kept.budget).toBeGreaterThan(0)
        expect(kept.right).toBe(true)
        // The bound's slack, measured: where the client would refuse, where a slot goes wrong.
        let refused = 0
        let wrong = 0
        for (let extra = 1; !wrong; extra++) {
          const more = restoredWith(bits + extra)
          if (!refused && more.budget === 0) refused = extra
          if (!more.right) wrong = extra
          if (more.right) expect(more.norm * 2n).toBeLessThan(q)
        }
        expect({ refused, wrong }).toEqual({ refused: refusedAt, wrong: wrongAt })
        // Not a vacuous bound: the measured noise is 0.19–0.44 of it across runs (fresh keys each).
        expect(measured / rule.noiseBound).toBeGreaterThan(0.1)
      })
    })
  }
})
