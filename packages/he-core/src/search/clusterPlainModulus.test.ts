import type { Ciphertext } from 'node-seal/throws'
import { describe, expect, it } from 'vitest'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext } from '../params/ContextCache.ts'
import { withScope } from '../scope/SealScope.ts'
import { responsePhaseNorm } from '../testing/responsePhaseNorm.ts'
import { CLUSTER_PLAIN_BITS, clusterNoiseAt, clusterPlainModulus } from './clusterPlainModulus.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { resolveSearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import { searchConfigInputOf, verifySearchConfig } from './searchConfigInputOf.ts'
import { batchingPrime, SEARCH_PLAIN_MODULUS } from './searchParams.ts'
import { searchResponseDroppedBits } from './searchResponseDroppedBits.ts'
import { maxSearchScale } from './searchScaleOf.ts'
import { decodeSearchResponse } from './searchWire.ts'
import { mulberry32 } from './seededRandom.ts'

describe('cluster-private search chooses t from its layout', () => {
  it('leaves exact search as it was: t = 65537, the default profiles, no hoisting', () => {
    for (const [rows, dimension, bits] of [
      [10_000, 16, [27, 28, 28]],
      [10_000, 384, [30, 30, 31]],
    ] as const) {
      for (const clusters of [undefined, 0] as const) {
        const config = resolveSearchConfig({ rows, dimension, ...(clusters === undefined ? {} : { clusters }) })
        expect(config.plainModulus).toBe(SEARCH_PLAIN_MODULUS)
        expect(config.params.coeffModulusBits).toEqual(bits)
        expect(config.hoistBabySteps).toBe(false)
        expect(config.scale).toBe(maxSearchScale(SEARCH_PLAIN_MODULUS, dimension, 1))
      }
      // Where `auto` weighs clusters and takes exact search, it is the default exact config, to the byte.
      expect(resolveSearchConfig({ rows, dimension, clusters: 'auto' })).toEqual(
        resolveSearchConfig({ rows, dimension }),
      )
    }
  })

  it("at the million bench's shape: the largest t whose noise bound keeps a bit of budget", () => {
    const config = resolveSearchConfig({ rows: 1_000_000, dimension: 384, clusters: 'auto' })
    expect(config.clusters?.clusters).toBe(16)
    expect(config.params.coeffModulusBits).toEqual([31, 31, 31])
    expect(config.hoistBabySteps).toBe(false)
    const t = config.plainModulus
    // 188417, s = 297: recall@10 0.946 against float cosine on the bench's data (0.881 at 65537).
    expect(t).toBe(batchingPrime(4096, 18))
    expect(clusterPlainModulus(config)).toBe(t)
    const at = clusterNoiseAt(config, t)
    expect(at.noiseBound + 0.5).toBeLessThan(at.room)
    // No larger batching prime tried would keep it.
    const larger = CLUSTER_PLAIN_BITS.map((bits) => batchingPrime(4096, bits)).filter((p) => p > t)
    expect(larger.length).toBeGreaterThan(0)
    for (const p of larger) {
      const next = clusterNoiseAt(config, p)
      expect(next.noiseBound + 0.5).toBeGreaterThanOrEqual(next.room)
    }
    // Hoisted baby steps add less noise: a larger t fits.
    const hoisted = resolveSearchConfig({ rows: 1_000_000, dimension: 384, clusters: 'auto', hoistBabySteps: true })
    expect(hoisted.plainModulus).toBeGreaterThan(t)
    expect(config.scale).toBe(maxSearchScale(t, 384, 1))
    // The whole cost model sees it: the dropped bits follow the bound at this t.
    expect(config.estimate?.responseBytes).toBeLessThan(config.blocks.length * 2 * 4096 * 4)
  })

  it('keeps the t of params given, refuses a scale beyond the chosen t, and BFV keeps 65537', () => {
    const given = resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8, params: 'n4096-wide' })
    expect(given.plainModulus).toBe(SEARCH_PLAIN_MODULUS)
    const chosen = resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8 })
    expect(chosen.plainModulus).toBeGreaterThan(SEARCH_PLAIN_MODULUS)
    // A scale above 65537's largest but within the chosen t's is accepted; one past it is not.
    const scale = maxSearchScale(SEARCH_PLAIN_MODULUS, 384, 1) + 20
    expect(resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8, scale }).scale).toBe(scale)
    expect(() =>
      resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8, scale: chosen.maxScale + 1 }),
    ).toThrow(HeError)
    const bfv = resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8, scheme: 'bfv' })
    expect(bfv.plainModulus).toBe(SEARCH_PLAIN_MODULUS)
    // A chunk layout noisier than the bound allows at any larger t keeps 65537 (chained baby steps, g = 1024).
    const noisy = resolveSearchConfig({
      rows: 20_000,
      dimension: 384,
      clusters: 8,
      hoistBabySteps: false,
      babyStep: 1024,
    })
    expect(noisy.plainModulus).toBe(clusterPlainModulus(noisy))
  })

  it('round-trips through its explicit input (what a client verifies): same id, same t', () => {
    const config = resolveSearchConfig({ rows: 20_000, dimension: 384, clusters: 8 })
    expect(resolveSearchConfig(searchConfigInputOf(config))).toEqual(config)
    expect(verifySearchConfig(JSON.parse(JSON.stringify(config))).configId).toBe(config.configId)
  })
})

/** Rows of norm 1 with every coordinate ±1/√D: the largest plaintext coefficients the scale allows. */
function extremeDatabase(rows: number, dimension: number, seed: number): SearchDatabase {
  const random = mulberry32(seed)
  const value = 1 / Math.sqrt(dimension)
  const vectors = Float64Array.from({ length: rows * dimension }, () => (random() < 0.5 ? -value : value))
  return { rows, dimension, vectors, ids: Array.from({ length: rows }, (_, row) => row) }
}

describe('at the chosen t, real SEAL: every score exact and the noise under the bound', () => {
  // The million bench's chunk layout (C = 16 at D = 384: three chunks, one full block of m rows).
  it('C = 16, D = 384, one full block: the probed cluster exact, every block keeps a bit of budget, dropped bits or not', async () => {
    const rows = 16 * 2560
    const dimension = 384
    const config = resolveSearchConfig({ rows, dimension, clusters: 16 })
    expect(config.plainModulus).toBeGreaterThan(SEARCH_PLAIN_MODULUS)
    expect(config.queryCiphertexts).toBe(3)
    expect(config.blocks.map((block) => block.folded)).toEqual([false])
    const ctx = await getHeContext(config.params)
    expect(ctx.plainModulus).toBe(BigInt(config.plainModulus))
    const rule = searchResponseDroppedBits(ctx, config)
    expect(rule.bits[0]).toBeGreaterThan(0)
    const database = extremeDatabase(rows, dimension, 27)
    using index = PrivateSearchIndex.process(ctx, database, config)
    const clustering = index.clustering
    if (!clustering) throw new HeError('INTERNAL', 'a cluster-private index publishes its clustering')
    using client = PrivateSearchClient.create(ctx, config, { clustering })
    const keyBytes = client.evaluationKeys()
    if (!keyBytes) throw new HeError('INTERNAL', 'server-side baby steps need Galois keys')
    using keys = EvaluationKeys.load(ctx, keyBytes)
    for (const cluster of [0, 15]) {
      const members = clustering.members[cluster] ?? []
      expect(members.length).toBeGreaterThan(2048)
      // Cluster 0 is asked for one of its own rows: a score of s² ≈ t/2, past 65537's range.
      const first = members[0] as number
      const query =
        cluster === 0
          ? database.vectors.slice(first * dimension, (first + 1) * dimension)
          : extremeDatabase(1, dimension, 100 + cluster).vectors
      const encrypted = client.encryptQuery(query, { cluster })
      const oracle = plaintextSearchScores(config, database, query)
      for (const droppedBits of [false, true]) {
        const { response } = index.evaluate(encrypted, keys, { droppedBits })
        const result = client.decryptScores(response)
        // The bound's promise, every bit kept or the rule's dropped: a bit of budget in every block.
        expect(result.minNoiseBudget).toBeGreaterThanOrEqual(1)
        for (const row of members) expect(result.scores[row]).toBe(oracle[row])
        if (!droppedBits) {
          // The scores use the larger t's range: the row's own score exceeds what 65537 holds.
          const largest = Math.max(...members.map((row) => Math.abs(oracle[row] as number)))
          expect(largest).toBeLessThanOrEqual((config.plainModulus - 1) / 2)
          if (cluster === 0) expect(largest).toBeGreaterThan((SEARCH_PLAIN_MODULUS - 1) / 2)
          // Measured noise, exactly, from the secret key: under the rule's bound.
          const blocks = decodeSearchResponse(response, {
            fingerprint: ctx.fingerprint,
            keySetId: client.keySet.id,
            configId: config.configId,
            blockCount: config.blocks.length,
          }).blocks
          withScope((scope) => {
            for (const { envelope } of blocks) {
              const ciphertext: Ciphertext = scope.track(new ctx.seal.Ciphertext())
              loadSealObject(ciphertext, ctx, envelope, { kind: 'ciphertext' })
              const measured = Number(responsePhaseNorm(ctx, client.keySet.secretKey, ciphertext)) / config.plainModulus
              expect(measured).toBeLessThanOrEqual(rule.noiseBound)
              expect(measured / rule.noiseBound).toBeGreaterThan(0.05)
            }
          })
        }
      }
    }
  }, 600_000)
})
