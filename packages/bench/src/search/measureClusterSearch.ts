import { EvaluationKeys, getHeContext } from '@sealbox/he-core'
import {
  clusterSearchDatabase,
  nearestClusters,
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchClustering,
  type SearchConfig,
  type SearchDatabase,
  syntheticSearchDatabase,
  topKIndices,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { type Spread, spread } from '../core/stats.ts'
import { cosineTopK, recallAt } from './recallAt.ts'

/** One measured config at one V: exact search or cluster-private with C clusters. */
export interface ClusterSearchRow {
  rows: number
  dimension: number
  /** Topics of the synthetic data. */
  topics: number
  /** The setting asked for (`0` exact, a count, or `auto`) and the count it resolved to (0: exact). */
  setting: number | 'auto'
  clusters: number
  rowsPerCluster: number
  queryCiphertexts: number
  responseCiphertexts: number
  babyStep: number
  kernel: string
  queryBytes: number
  responseBytes: number
  /** Balanced k-means, once (ms; 0 exact). */
  clusterMs: number
  processMs: number
  processedBytes: number
  /** evaluate()'s total and compute (ms, wall clock). */
  serverTotal: Spread
  serverCompute: Spread
  encryptMs: Spread
  decryptMs: Spread
  /** Mean over the queries of |hits ∩ exact cosine top 10| / 10, probing the nearest cluster (1 for exact). */
  recallAt10: number
  /** The same with the two nearest clusters probed (plaintext arithmetic over the clustering; 1 for exact). */
  recallAt10TwoProbes: number
  /** Against exact mode's own top 10 (the same integer scores over every row): what clustering alone loses. */
  recallAt10VsExactMode: number
  /** Every decrypted score of the probed cluster equal to the plaintext oracle in every query. */
  exact: boolean
  minNoiseBudget: number
  modelServerMs: number
}

/** What `measureClusterSearch` runs. */
export interface ClusterSearchPlan {
  rows: readonly number[]
  dimension: number
  settings: readonly (number | 'auto')[]
  queries: number
  warmup: number
  /** Topics of the synthetic data (default V/100). */
  topics?: number
  log: (line: string) => void
}

/**
 * A clustered synthetic dataset (rows/100 topics, spread 1: a row's cosine to its topic ≈ 0.7,
 * so neighbours' cosines differ by more than the scaled integers' rounding)
 * and queries drawn from the same topics, seeded.
 */
export function clusteredBenchData(rows: number, dimension: number, queries: number, topicCount?: number) {
  const topics = topicCount ?? Math.max(8, Math.round(rows / 100))
  return {
    topics,
    database: syntheticSearchDatabase({ rows, dimension, seed: 2027, topics, spread: SPREAD }),
    queries: syntheticSearchDatabase({ rows: queries, dimension, seed: 4049, topics, topicSeed: 2027, spread: SPREAD }),
  }
}

const SPREAD = 1

/** Measures exact and cluster-private search at every V of the plan (one process, in this thread). */
export async function measureClusterSearch(plan: ClusterSearchPlan): Promise<ClusterSearchRow[]> {
  const out: ClusterSearchRow[] = []
  for (const rows of plan.rows) {
    const data = clusteredBenchData(rows, plan.dimension, plan.queries + plan.warmup, plan.topics)
    for (const setting of plan.settings) {
      plan.log(`cluster search: V=${rows} D=${plan.dimension} clusters=${setting}`)
      out.push({ topics: data.topics, ...(await measureOne(plan, data.database, data.queries, setting)) })
    }
  }
  return out
}

async function measureOne(
  plan: ClusterSearchPlan,
  database: SearchDatabase,
  queries: SearchDatabase,
  setting: number | 'auto',
): Promise<Omit<ClusterSearchRow, 'topics'>> {
  const config: SearchConfig = resolveSearchConfig({
    rows: database.rows,
    dimension: database.dimension,
    clusters: setting,
  })
  const ctx = await getHeContext(config.params)
  let clustering: SearchClustering | undefined
  const clusterStart = performance.now()
  if (config.clusters) clustering = clusterSearchDatabase(config, database)
  const clusterMs = config.clusters ? performance.now() - clusterStart : 0
  using index = PrivateSearchIndex.process(ctx, database, config, clustering ? { clustering } : {})
  using client = PrivateSearchClient.create(ctx, config, clustering ? { clustering } : {})
  const keyBytes = client.evaluationKeys()
  using keys = keyBytes ? EvaluationKeys.load(ctx, keyBytes) : undefined
  const d = database.dimension
  const totals: number[] = []
  const computes: number[] = []
  const encrypts: number[] = []
  const decrypts: number[] = []
  let recall = 0
  let recallTwo = 0
  let recallExactMode = 0
  let exact = true
  let minNoiseBudget = Number.POSITIVE_INFINITY
  let queryBytes = 0
  let responseBytes = 0
  for (let i = 0; i < queries.rows; i++) {
    const query = queries.vectors.subarray(i * d, (i + 1) * d)
    const encryptStart = performance.now()
    const bytes = client.encryptQuery(query)
    const encryptMs = performance.now() - encryptStart
    const evaluation = index.evaluate(bytes, keys ?? null)
    const decryptStart = performance.now()
    const scores = client.decryptScores(evaluation.response)
    const hits = client.topK(scores, 10).map((hit) => hit.row)
    const decryptMs = performance.now() - decryptStart
    if (i < plan.warmup) continue
    totals.push(evaluation.timings.totalMs)
    computes.push(evaluation.timings.computeMs)
    encrypts.push(encryptMs)
    decrypts.push(decryptMs)
    queryBytes = bytes.byteLength
    responseBytes = evaluation.response.byteLength
    minNoiseBudget = Math.min(minNoiseBudget, scores.minNoiseBudget)
    const oracle = plaintextSearchScores(config, database, query)
    const scored = clustering ? (clustering.members[scores.cluster as number] ?? []) : null
    for (let row = 0; row < config.rows; row++) {
      if (scored && !Number.isFinite(scores.scores[row] as number)) continue
      if (scores.scores[row] !== oracle[row]) exact = false
    }
    if (scored && scored.length !== scores.scores.filter(Number.isFinite).length) exact = false
    recallExactMode += recallAt(hits, topKIndices(oracle, 10))
    const truth = cosineTopK(database, query, 10)
    recall += recallAt(hits, truth)
    if (clustering) {
      const two = nearestClusters(clustering, config.metric, query, 2).flatMap((c) => clustering.members[c] ?? [])
      recallTwo += recallAt(cosineTopK(database, query, 10, two), truth)
    } else {
      recallTwo += recallAt(hits, truth)
    }
  }
  if (!exact)
    throw new BenchError('ENGINE_FAILED', `V=${config.rows} clusters=${setting}: a score differs from the oracle`)
  const measured = queries.rows - plan.warmup
  return {
    rows: config.rows,
    dimension: config.dimension,
    setting,
    clusters: config.clusters?.clusters ?? 0,
    rowsPerCluster: config.clusters?.rowsPerCluster ?? config.rows,
    queryCiphertexts: config.queryCiphertexts,
    responseCiphertexts: config.blocks.length,
    babyStep: config.babyStep,
    kernel: index.kernel,
    queryBytes,
    responseBytes,
    clusterMs,
    processMs: index.processing.milliseconds,
    processedBytes: index.processing.bytes,
    serverTotal: spread(totals),
    serverCompute: spread(computes),
    encryptMs: spread(encrypts),
    decryptMs: spread(decrypts),
    recallAt10: recall / measured,
    recallAt10TwoProbes: recallTwo / measured,
    recallAt10VsExactMode: recallExactMode / measured,
    exact,
    minNoiseBudget,
    modelServerMs: config.estimatedServerMs,
  }
}
