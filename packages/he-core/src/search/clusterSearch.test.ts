import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeBundle } from '../envelope/decodeBundle.ts'
import { EvaluationKeys } from '../keys/EvaluationKeys.ts'
import { getHeContext, paramsInputOf } from '../params/ContextCache.ts'
import type { HeContext } from '../params/HeContext.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { measureHeap } from '../testing/measureHeap.ts'
import { clusterSearchDatabase } from './clusterSearchDatabase.ts'
import { PrivateSearchClient } from './PrivateSearchClient.ts'
import { PrivateSearchIndex } from './PrivateSearchIndex.ts'
import { plaintextSearchScores } from './plaintextSearchScores.ts'
import { nearestClusters } from './SearchClustering.ts'
import { resolveSearchConfig, type SearchConfig } from './SearchConfig.ts'
import type { SearchConfigInput } from './SearchConfigInput.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { SearchKernelChoice } from './SearchKernel.ts'
import { syntheticSearchDatabase, syntheticSearchQuery } from './syntheticSearchDatabase.ts'
import { topKIndices } from './topK.ts'

/** A processed cluster-private index, its client and the client's uploaded keys. */
async function clusterFixture(input: SearchConfigInput, database: SearchDatabase, kernel: SearchKernelChoice = 'auto') {
  const config = resolveSearchConfig(input)
  const ctx = await getHeContext(config.params)
  const index = PrivateSearchIndex.process(ctx, database, config, { kernel })
  const clustering = index.clustering
  if (!clustering) throw new Error('a cluster-private index publishes its clustering')
  const client = PrivateSearchClient.create(ctx, config, { catalog: { ids: database.ids }, clustering })
  const keyBytes = client.evaluationKeys()
  const keys = keyBytes && EvaluationKeys.load(ctx, keyBytes)
  return {
    config,
    ctx,
    index,
    client,
    keys,
    clustering,
    dispose() {
      keys?.dispose()
      client.dispose()
      index.dispose()
    },
  }
}

/** Every row of the chosen cluster scores exactly the oracle; every other row is −∞. */
function expectClusterScores(
  config: SearchConfig,
  database: SearchDatabase,
  members: readonly number[],
  query: ArrayLike<number>,
  scores: Float64Array,
): void {
  const oracle = plaintextSearchScores(config, database, query)
  const inCluster = new Set(members)
  let checked = 0
  for (let row = 0; row < config.rows; row++) {
    if (inCluster.has(row)) {
      expect(scores[row], `row ${row}`).toBe(oracle[row])
      checked++
    } else {
      expect(scores[row], `row ${row}`).toBe(Number.NEGATIVE_INFINITY)
    }
  }
  expect(checked).toBe(members.length)
}

describe('cluster-private config', () => {
  it('leaves exact search (0 or left out) as it was: same config id, no layout', () => {
    const exact = resolveSearchConfig({ rows: 10_000, dimension: 16 })
    expect(resolveSearchConfig({ rows: 10_000, dimension: 16, clusters: 0 })).toEqual(exact)
    expect(exact.clusters).toBeUndefined()
  })

  it('states the layout: chunks of n/2, m = ⌈V/C⌉ virtual rows, one query ciphertext per chunk', () => {
    const config = resolveSearchConfig({ rows: 100_000, dimension: 384, clusters: 32 })
    expect(config.clusters).toEqual({ clusters: 32, rowsPerCluster: 3125, chunkWidth: 2048, chunks: 6 })
    expect(config.queryCiphertexts).toBe(6)
    expect(config.blocks.map((b) => [b.rows, b.folded])).toEqual([[3125, false]])
    expect(config.babySteps).toBe('server')
    expect(config.galoisSteps).toEqual([1, config.babyStep])
    expect(config.configId).not.toBe(resolveSearchConfig({ rows: 100_000, dimension: 384, clusters: 16 }).configId)
  })

  it('keeps query + response ≤ 1 MB at V = 1,000,000, D = 384 for the counts auto weighs', () => {
    const link = 'broadband'
    const config = resolveSearchConfig({ rows: 100_000, dimension: 384, clusters: 'auto', link })
    expect(config.clusters).toBeDefined()
    // A million rows fit the key-switching kernel's diagonal memory (u32 residues); 1.4 million do not.
    const million = resolveSearchConfig({ rows: 1_000_000, dimension: 384, clusters: 'auto', link })
    expect(million.clusters).toBeDefined()
    const bytes = (million.estimate?.queryBytes ?? Infinity) + (million.estimate?.responseBytes ?? Infinity)
    expect(bytes).toBeLessThanOrEqual(1_000_000)
    expect(() => resolveSearchConfig({ rows: 1_400_000, dimension: 384, clusters: 32 })).toThrow(
      /GiB of u32 residues in the key-switching kernel's diagonal memory \(one copy per node.*the limit is 3\.9 GiB/,
    )
  })

  it('refuses impossible settings with coded errors', () => {
    expect(() => resolveSearchConfig({ rows: 100, dimension: 8, clusters: 1 })).toThrow(/C=1/)
    expect(() => resolveSearchConfig({ rows: 100, dimension: 8, clusters: 101 })).toThrow(/C=101/)
    expect(() => resolveSearchConfig({ rows: 100, dimension: 8, clusters: 4, babySteps: 'client' })).toThrow(/server/)
    expect(() => resolveSearchConfig({ rows: 100, dimension: 8, clusters: 4, babyStep: 3 })).toThrow(/powers of two/)
    expect(() => resolveSearchConfig({ rows: 100, dimension: 8, clusters: -1 })).toThrow(/clusters/)
  })
})

describe('cluster-private search against the plaintext oracle', () => {
  let ctx: HeContext
  beforeAll(async () => {
    ctx = await getHeContext(resolveSearchConfig({ rows: 10, dimension: 4, clusters: 2 }).params)
  })

  it.each([
    // Two chunks (C·D = 2400 > n/2), one folded block.
    { rows: 2000, dimension: 600, clusters: 4, kernel: 'auto' as const, label: 'key-switching kernel' },
    // One chunk, two blocks: a full one (4096 virtual rows) and a folded one.
    { rows: 8200, dimension: 20, clusters: 2, kernel: 'auto' as const, label: 'key-switching kernel' },
    // SEAL's evaluator over two chunks.
    { rows: 600, dimension: 1100, clusters: 2, kernel: 'seal' as const, label: "SEAL's evaluator" },
    // Hoisted baby steps: each chunk's g − 1 rotations from its own decomposition.
    { rows: 600, dimension: 1100, clusters: 2, kernel: 'auto' as const, hoist: true, label: 'hoisted' },
  ])('V=$rows D=$dimension C=$clusters ($label): every row of the chosen cluster exact', async (shape) => {
    const database = syntheticSearchDatabase({ rows: shape.rows, dimension: shape.dimension, seed: 7, topics: 8 })
    const f = await clusterFixture(
      {
        rows: shape.rows,
        dimension: shape.dimension,
        clusters: shape.clusters,
        ...('hoist' in shape ? { hoistBabySteps: true, babyStep: 8 } : {}),
      },
      database,
      shape.kernel,
    )
    try {
      expect(f.index.kernel).toBe(shape.kernel === 'seal' ? 'seal' : 'keySwitch')
      expect(f.config.queryCiphertexts).toBe(Math.ceil((shape.clusters * shape.dimension) / 2048))
      if ('hoist' in shape) expect(f.config.galoisSteps).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      for (const cluster of [0, shape.clusters - 1]) {
        const query = syntheticSearchQuery(shape.dimension, cluster + 3)
        const { response } = f.index.evaluate(f.client.encryptQuery(query, { cluster }), f.keys)
        const scores = f.client.decryptScores(response)
        expect(scores.cluster).toBe(cluster)
        expect(scores.strayNonZeroSlots).toBe(0)
        expect(scores.minNoiseBudget).toBeGreaterThan(0)
        expectClusterScores(f.config, database, f.clustering.members[cluster] ?? [], query, scores.scores)
        // Ranking: the cluster's best rows by the oracle, with global row ids.
        const oracle = plaintextSearchScores(f.config, database, query)
        const members = f.clustering.members[cluster] ?? []
        const expected = topKIndices(
          members.map((row) => oracle[row] as number),
          5,
        ).map((i) => members[i])
        expect(f.client.rank(response, 5, { cluster }).hits.map((hit) => hit.id)).toEqual(expected)
      }
    } finally {
      f.dispose()
    }
  })

  afterAll(() => {
    expect(ctx.fingerprint).toBeTruthy()
  })
})

describe('the server never learns the cluster', () => {
  it('queries for different clusters have the same wire format: same meta, sizes and item headers', async () => {
    const database = syntheticSearchDatabase({ rows: 1000, dimension: 600, seed: 3, topics: 6 })
    const config = resolveSearchConfig({ rows: 1000, dimension: 600, clusters: 4 })
    const ctx = await getHeContext(config.params)
    const clustering = clusterSearchDatabase(config, database)
    using client = PrivateSearchClient.create(ctx, config, { clustering })
    const query = syntheticSearchQuery(600, 1)
    const decoded = [0, 1, 2, 3].map((cluster) => {
      const bytes = client.encryptQuery(query, { cluster })
      return { bytes, bundle: decodeBundle(bytes, { itemKind: 'ciphertext' }) }
    })
    const first = decoded[0] as (typeof decoded)[number]
    for (const { bytes, bundle } of decoded) {
      expect(bytes.byteLength).toBe(first.bytes.byteLength)
      expect(bundle.meta).toEqual(first.bundle.meta)
      expect(bundle.keySetId).toBe(first.bundle.keySetId)
      expect(bundle.items.length).toBe(config.clusters?.chunks)
      const headers = bundle.items.map(({ payload, ...rest }) => ({ ...rest, bytes: payload.byteLength }))
      expect(headers).toEqual(
        first.bundle.items.map(({ payload, ...rest }) => ({ ...rest, bytes: payload.byteLength })),
      )
    }
    // Nothing in the clear names the cluster: the label is the config's, not the query's.
    expect(JSON.stringify(first.bundle.meta)).not.toMatch(/cluster/i)
  })
})

describe('recall@10 against exact cosine on a clustered dataset', () => {
  it('probing the nearest cluster finds ≥ 0.9 of the exact top 10', async () => {
    const rows = 6000
    const dimension = 32
    const topics = 48
    const database = syntheticSearchDatabase({ rows, dimension, seed: 11, topics })
    const queries = syntheticSearchDatabase({ rows: 12, dimension, seed: 12, topics, topicSeed: 11 })
    const f = await clusterFixture({ rows, dimension, clusters: 8 }, database)
    try {
      let found = 0
      for (let i = 0; i < queries.rows; i++) {
        const query = queries.vectors.subarray(i * dimension, (i + 1) * dimension)
        const exact = topKIndices(cosines(database, query), 10)
        const cluster = nearestClusters(f.clustering, 'cosine', query)[0]
        expect(f.client.nearestCluster(query)).toBe(cluster)
        const { response } = f.index.evaluate(f.client.encryptQuery(query), f.keys)
        const hits = f.client.rank(response, 10).hits.map((hit) => hit.row)
        found += hits.filter((row) => exact.includes(row)).length
      }
      expect(found / (10 * queries.rows)).toBeGreaterThanOrEqual(0.9)
      // Two probes (two queries): the best of both clusters, exactly the oracle's over their union.
      const query = queries.vectors.subarray(0, dimension)
      const probed = f.client.nearestClusters(query, 2)
      const probes = probed.map((cluster) => ({
        cluster,
        response: f.index.evaluate(f.client.encryptQuery(query, { cluster }), f.keys).response,
      }))
      const oracle = plaintextSearchScores(f.config, database, query)
      const union = probed.flatMap((c) => f.clustering.members[c] ?? [])
      const best = topKIndices(
        union.map((row) => oracle[row] as number),
        10,
      ).map((i) => union[i])
      expect(f.client.rankProbes(probes, 10).hits.map((hit) => hit.row)).toEqual(best)
    } finally {
      f.dispose()
    }
  })
})

describe('cluster-private errors', () => {
  it('a client needs the clustering of a cluster-private config, and only then', async () => {
    const config = resolveSearchConfig({ rows: 200, dimension: 8, clusters: 4 })
    const ctx = await getHeContext(config.params)
    expect(() => PrivateSearchClient.create(ctx, config)).toThrow(/clustering/)
    const database = syntheticSearchDatabase({ rows: 200, dimension: 8, seed: 2 })
    const clustering = clusterSearchDatabase(config, database)
    const damaged = { ...clustering, members: [clustering.members[0] ?? [], ...clustering.members.slice(2)] }
    expect(() => PrivateSearchClient.create(ctx, config, { clustering: damaged })).toThrow(/member lists|expected C/)
    const twice = { ...clustering, members: clustering.members.map((list, c) => (c === 1 ? [...list, 0] : list)) }
    expect(() => PrivateSearchClient.create(ctx, config, { clustering: twice })).toThrow(/two clusters|more than m/)
    using client = PrivateSearchClient.create(ctx, config, { clustering })
    expect(() => client.encryptQuery(syntheticSearchQuery(8, 1), { cluster: 4 })).toThrow(/cluster 4/)
    // Exact search at the cluster config's own params (its t is chosen from the layout).
    const exact = resolveSearchConfig({ rows: 200, dimension: 8, params: paramsInputOf(config.params) })
    expect(() => PrivateSearchClient.create(ctx, exact, { clustering })).toThrow(/exact/)
  })

  it('clusters deterministically, balanced: every cluster at most m rows, every row once', () => {
    const config = resolveSearchConfig({ rows: 3001, dimension: 12, clusters: 7 })
    const database = syntheticSearchDatabase({ rows: 3001, dimension: 12, seed: 5, topics: 20 })
    const a = clusterSearchDatabase(config, database)
    expect(clusterSearchDatabase(config, database)).toEqual(a)
    const sizes = a.members.map((list) => list.length)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(Math.ceil(3001 / 7))
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(3001)
    expect(new Set(a.members.flat()).size).toBe(3001)
  })
})

describe('cluster-private memory', () => {
  it.each(['auto', 'seal'] as const)(
    'stays flat over repeated queries and frees everything it owns (%s)',
    async (kernel) => {
      const database = syntheticSearchDatabase({ rows: 300, dimension: 8, seed: 4, topics: 5 })
      const f = await clusterFixture({ rows: 300, dimension: 8, clusters: 4 }, database, kernel)
      try {
        const query = syntheticSearchQuery(8, 2)
        const roundTrip = () => {
          const { response } = f.index.evaluate(f.client.encryptQuery(query), f.keys)
          f.client.rank(response, 5)
        }
        roundTrip()
        const report = measureHeap(roundTrip, { warmup: 3, iterations: 20 })
        expect(report.handlesAfter).toBe(report.handlesBefore)
        expect(report.heapAfter).toBe(report.heapAfterWarmup)
        const baseline = liveSealHandles()
        const processing = measureHeap(
          () => {
            using index = PrivateSearchIndex.process(f.ctx, database, f.config, { kernel, clustering: f.clustering })
            expect(index.clustering).toEqual(f.clustering)
          },
          { warmup: 1, iterations: 2 },
        )
        expect(processing.handlesAfter).toBe(baseline)
        expect(processing.heapAfter).toBe(processing.heapAfterWarmup)
      } finally {
        f.dispose()
      }
    },
  )
})

/** Exact cosine of every row with the query, in floats. */
function cosines(database: SearchDatabase, query: ArrayLike<number>): Float64Array {
  const d = database.dimension
  let qq = 0
  for (let j = 0; j < d; j++) qq += (query[j] as number) ** 2
  const out = new Float64Array(database.rows)
  for (let row = 0; row < database.rows; row++) {
    let dot = 0
    let xx = 0
    for (let j = 0; j < d; j++) {
      const x = database.vectors[row * d + j] as number
      dot += x * (query[j] as number)
      xx += x * x
    }
    out[row] = dot / Math.sqrt(xx * qq)
  }
  return out
}
