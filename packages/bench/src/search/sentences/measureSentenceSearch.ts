import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  nearestClusters,
  PrivateSearchClient,
  parseNpy,
  type SearchConfig,
  type SearchDatabase,
} from '@sealbox/he-core/search'
import { BenchError } from '../../BenchError.ts'
import { loadAverage } from '../../core/machineInfo.ts'
import { type Spread, spread } from '../../core/stats.ts'
import { startMeasuredServer } from '../measureServerStart.ts'
import { cosineTopK, recallAt } from '../recallAt.ts'
import { serverTotalMs } from '../serverTotalMs.ts'
import type { SentenceEmbeddings } from './prepareSentenceEmbeddings.ts'

type Load = [number, number, number]

/** One server setting measured over the held-out sentences. */
export interface SentenceSearchRow {
  /** SEARCH_CLUSTERS as set (0: exact) and the count the server resolved it to (0: exact). */
  setting: number | 'auto'
  clusters: number
  /** Rows scored per query: every row (exact), or the largest cluster's. */
  rowsPerCluster: number
  configId: string
  queries: number
  /** Mean over the queries of |client's top 10 ∩ exact float cosine top 10 over every row| / 10. */
  recallAt10: number
  /** The worst query's. */
  recallAt10Min: number
  /** Queries whose recall@10 is at least 0.9. */
  queriesAtLeast09: number
  /**
   * Cluster-private: float recall@10 had the client probed its `probes` nearest clusters
   * (exact cosine over their rows, from the public clustering; no encryption, no integer
   * scale): what the clustering alone loses, and what more probes would win back.
   */
  probeRecall?: { probes: number; recallAt10: number }[]
  queryBytes: number
  responseBytes: number
  /** Sum of the reply's Server-Timing phases but the durable store (as the million bench counts it). */
  serverTotal: Spread & { load: Load }
  readyMs: number
}

/** Clusters probed in the plaintext what-if (those below C). */
const PROBES = [1, 2, 4, 8]

/** Rows and held-out queries as the server and the oracle see them (float32 read into float64). */
export async function loadSentenceData(embeddings: SentenceEmbeddings): Promise<{
  database: SearchDatabase
  queries: SearchDatabase
}> {
  const database = parseNpy(new Uint8Array(await readFile(embeddings.databasePath)))
  const queries = parseNpy(new Uint8Array(await readFile(embeddings.queriesPath)))
  if (
    database.rows !== embeddings.rows ||
    queries.rows !== embeddings.queries ||
    database.dimension !== queries.dimension
  )
    throw new BenchError(
      'INTERNAL',
      `sentences: ${embeddings.databasePath} (${database.rows} × ${database.dimension}) and ${embeddings.queriesPath} (${queries.rows} × ${queries.dimension}) do not match the report (${embeddings.rows} rows, ${embeddings.queries} queries)`,
    )
  return { database, queries }
}

/**
 * Starts a real server (`node src/main.ts`, thread workers) on the embeddings' .npy with
 * SEARCH_CLUSTERS = `setting`, and sends it every held-out sentence as a client does:
 * config → keys → encrypted query → decrypt → top 10, scored against exact float cosine
 * over every row of the database.
 */
export async function measureSentenceSetting(options: {
  embeddings: SentenceEmbeddings
  data: { database: SearchDatabase; queries: SearchDatabase }
  setting: number | 'auto'
  workers: number
  dir: string
  log: (line: string) => void
}): Promise<SentenceSearchRow> {
  const { data, setting, log } = options
  const d = data.database.dimension
  log(`sentences: SEARCH_CLUSTERS=${setting}: starting a server on ${data.database.rows} rows`)
  const { node, start } = await startMeasuredServer({
    name: `sentences-${setting}`,
    dataDir: join(options.dir, `data-${setting}`),
    workers: options.workers,
    env: { DATABASE: options.embeddings.databasePath, SEARCH_CLUSTERS: String(setting), SEARCH_CACHE: 'true' },
    readyTimeoutMs: 30 * 60_000,
  })
  try {
    const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
    const { database: _facts, fingerprint: _fingerprint, ...rest } = await client.searchConfig()
    const config: SearchConfig = rest
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('search', keys)
    const probeCounts = search.clustering ? PROBES.filter((p) => p < (config.clusters?.clusters ?? 0) || p === 1) : []
    const probeSums = probeCounts.map(() => 0)
    const recalls: number[] = []
    const totals: number[] = []
    let queryBytes = 0
    let responseBytes = 0
    for (let i = 0; i < data.queries.rows; i++) {
      const vector = data.queries.vectors.subarray(i * d, (i + 1) * d)
      const query = search.encryptQuery(vector)
      const result = await client.search(query, keys ? { keySet: 'search' } : {})
      totals.push(serverTotalMs(result.timing))
      queryBytes = query.byteLength
      responseBytes = result.responses.reduce((sum, r) => sum + r.byteLength, 0)
      const hits = search.topK(search.decryptScores(result.responses).scores, 10).map((hit) => hit.row)
      const truth = cosineTopK(data.database, vector, 10)
      recalls.push(recallAt(hits, truth))
      const clustering = search.clustering
      if (clustering) {
        const order = nearestClusters(clustering, config.metric, vector, Math.max(...probeCounts))
        for (const [k, probes] of probeCounts.entries()) {
          const rows = order
            .slice(0, probes)
            .flatMap((c) => clustering.members[c] ?? [])
            .sort((a, b) => a - b)
          probeSums[k] = (probeSums[k] as number) + recallAt(cosineTopK(data.database, vector, 10, rows), truth)
        }
      }
      if ((i + 1) % 25 === 0 || i + 1 === data.queries.rows)
        log(
          `sentences: SEARCH_CLUSTERS=${setting}: ${i + 1}/${data.queries.rows} queries, recall@10 so far ${(recalls.reduce((a, b) => a + b, 0) / recalls.length).toFixed(3)}`,
        )
    }
    const sizes = config.clusters ? config.clusters.rowsPerCluster : config.rows
    return {
      setting,
      clusters: config.clusters?.clusters ?? 0,
      rowsPerCluster: sizes,
      configId: config.configId,
      queries: recalls.length,
      recallAt10: recalls.reduce((a, b) => a + b, 0) / recalls.length,
      recallAt10Min: Math.min(...recalls),
      queriesAtLeast09: recalls.filter((r) => r >= 0.9).length,
      ...(probeCounts.length > 0
        ? {
            probeRecall: probeCounts.map((probes, k) => ({
              probes,
              recallAt10: (probeSums[k] as number) / recalls.length,
            })),
          }
        : {}),
      queryBytes,
      responseBytes,
      serverTotal: { ...spread(totals), load: loadAverage() },
      readyMs: start.readyMs,
    }
  } finally {
    await node.stop()
  }
}

/** Every setting in turn, each on its own server, in a scratch directory removed afterwards. */
export async function measureSentenceSearch(options: {
  embeddings: SentenceEmbeddings
  settings: readonly (number | 'auto')[]
  workers: number
  log: (line: string) => void
  /** Hears the rows so far after each setting (a long run keeps what it measured). */
  onRow?: (rows: readonly SentenceSearchRow[]) => Promise<void>
}): Promise<SentenceSearchRow[]> {
  const data = await loadSentenceData(options.embeddings)
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-sentences-'))
  try {
    const out: SentenceSearchRow[] = []
    for (const setting of options.settings) {
      out.push(await measureSentenceSetting({ ...options, data, setting, dir }))
      await options.onRow?.(out)
    }
    return out
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
