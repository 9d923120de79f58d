import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient, TIMING_PHASES } from '@sealbox/he-core/client'
import {
  encodeNpyFloat32,
  PrivateSearchClient,
  type SearchConfig,
  type SearchLinkName,
  type SearchRowSource,
  scaleQueryVector,
  scaleSearchRows,
  searchProcessedMemory,
  syntheticSearchQuery,
  syntheticSearchRows,
} from '@sealbox/he-core/search'
import { loadAverage } from '../core/machineInfo.ts'
import { type Spread, spread } from '../core/stats.ts'
import { type MillionLinkRow, measureMillionLinks } from './measureMillionLinks.ts'
import { millionBenchData } from './measureScaleRecall.ts'
import { measureServerStart, type ServerStart, startMeasuredServer, treeStatusMiB } from './measureServerStart.ts'
import { cosineTopK, recallAt } from './recallAt.ts'
import { serverTotalMs } from './serverTotalMs.ts'

/*
 * `npm run benchmark:search -- --million`: one node (`node src/main.ts`, WORKERS=2, thread
 * workers) serving V rows of D = 384, as an operator starts it:
 *   exact            DATABASE=synthetic SYNTHETIC_ROWS=V SYNTHETIC_DIM=384
 *   cluster-private  DATABASE=<clustered .npy> SEARCH_CLUSTERS=auto
 * Each case: the first start (processing, cache written) and a restart (the cache read),
 * spawn → /readyz; the whole server's resident memory (main process and any child, from
 * /proc) once ready and after the queries, with its peak; the server's own total per query
 * (decode + load + compute + save, from the reply's timing); query and response bytes; every
 * decrypted score of a sample of rows against a plain integer oracle; recall@10 against
 * exact float cosine for the clustered data. The load average is read beside every figure.
 */

/** One case of the run. */
export interface MillionRowsCase {
  name: 'exact' | 'cluster-private'
  rows: number
  dimension: number
  workers: number
  /** Cluster-private: the V/100 topics grouped under this many subjects (`syntheticSearchDatabase`); absent: independent topics. */
  subjects?: number
}

type Load = [number, number, number]

/** What one case measured. */
export interface MillionRowsResult extends MillionRowsCase {
  configId: string
  kernel: string
  form: string
  blocks: number
  clusters: number
  processedMiB: number
  firstStart: { readyMs: number; processingMs: number; load: Load }
  /** `processingMs`: the builder's reading of the cache into the shared memory (absent in runs before it was kept). */
  restart: { readyMs: number; processingMs?: number; cachedBlocks: number; load: Load }
  /** Whole server, MiB: once ready after the restart, after the queries, and the peak (VmHWM) of either start. */
  rss: { readyMiB: number; afterQueriesMiB: number; peakFirstStartMiB: number; peakRestartMiB: number; load: Load }
  serverTotal: Spread & { load: Load }
  /** A worker thread's CPU time on the query: of a query split across the workers, its busiest part's (the server reports each phase's longest part). */
  serverCpu: Spread
  queryBytes: number
  responseBytes: number
  /** Rows whose decrypted scores were compared with the oracle, and whether all matched. */
  checkedRows: number
  exact: boolean
  /** Cluster-private: mean recall@10 of the client's top 10 against exact float cosine over every row. */
  recallAt10?: number
  /** End to end over each shaped link (`--million-links`): encrypt, upload, server, download, decrypt and rank. */
  links?: MillionLinkRow[]
  /** Plaintext products of one query (Σ diagonals over the blocks), and of its busiest part when split. */
  products?: { query: number; busiestPart: number; parts: number }
  /** Median ms of each Server-Timing phase (of a split query, its longest part's): where the server total goes. */
  phases?: Record<string, number>
  /** What measured this row (a report keeps rows of earlier runs for cases a run did not measure). */
  source?: MillionRowsSource
}

/** The command, date and commit of the run that measured a row. */
export interface MillionRowsSource {
  command: string
  date: string
  commit?: string
  dirty?: boolean
}

/** The server's default SEARCH_SPLIT_BLOCKS, pinned in the bench's env so the parts below are the server's. */
const SPLIT_BLOCKS = 8

/** How the server splits a query of `config` over `workers` (apps/server `searchParts`): part sizes, busiest first. */
function queryProducts(config: SearchConfig, workers: number): NonNullable<MillionRowsResult['products']> {
  const blocks = config.blocks.length
  const parts = Math.max(1, Math.min(workers, Math.floor(blocks / SPLIT_BLOCKS)))
  const busiestBlocks = Math.ceil(blocks / parts)
  const diagonals = (list: SearchConfig['blocks']) => list.reduce((sum, block) => sum + block.diagonals, 0)
  return { query: diagonals(config.blocks), busiestPart: diagonals(config.blocks.slice(0, busiestBlocks)), parts }
}

const MiB = 2 ** 20
/** A million rows processed on a machine loaded by other work: an hour at most. */
const READY_TIMEOUT_MS = 60 * 60_000

/** The slowest worker's figure of its warm line (the builder's; a worker that attached reports none). */
function slowest(start: ServerStart, key: 'processingMs' | 'cachedBlocks'): number {
  return Math.max(0, ...start.warm.map((line) => Number(line[key] ?? 0)))
}

/** The oracle's scores of rows [first, first + count): Σ_j X[r][j]·q[j] over the scaled, rounded vectors. */
function oracleScores(
  config: SearchConfig,
  source: SearchRowSource,
  vector: ArrayLike<number>,
  first: number,
  count: number,
): Float64Array {
  const x = scaleSearchRows(config, source, first, count)
  const q = scaleQueryVector(config, vector)
  const d = config.dimension
  const out = new Float64Array(count)
  for (let r = 0; r < count; r++) {
    let sum = 0
    for (let j = 0; j < d; j++) sum += (x[r * d + j] as number) * (q[j] as number)
    out[r] = sum
  }
  return out
}

/** Measures one case end to end; `dir` holds its DATA_DIR (and the .npy of clustered data). */
export async function measureMillionRowsCase(
  c: MillionRowsCase,
  options: {
    queries: number
    dir: string
    log: (line: string) => void
    /** Shaped links to measure end to end over after the queries, and the samples per link. */
    links?: { names: readonly SearchLinkName[]; samples: number; cacheDir: string }
  },
): Promise<MillionRowsResult> {
  const { queries, dir, log } = options
  const dataDir = join(dir, `data-${c.name}`)
  let env: Record<string, string>
  let source: SearchRowSource
  let queryVectors: Float64Array[]
  let clustered: { vectors: ArrayLike<number> } | undefined
  if (c.name === 'exact') {
    const seed = 1
    env = {
      DATABASE: 'synthetic',
      SYNTHETIC_ROWS: String(c.rows),
      SYNTHETIC_DIM: String(c.dimension),
      SYNTHETIC_SEED: String(seed),
    }
    source = syntheticSearchRows({ rows: c.rows, dimension: c.dimension, seed })
    queryVectors = Array.from({ length: queries }, (_, i) => syntheticSearchQuery(c.dimension, 100 + i))
  } else {
    // The scale-recall study's data: V/100 topics, under the case's subjects if it has them; queries drawn like the rows.
    const { vectors: f32, queries: asked } = millionBenchData(c.rows, c.dimension, queries, c.subjects ?? 0)
    const path = join(dir, `clustered-${c.rows}x${c.dimension}.npy`)
    await writeFile(path, encodeNpyFloat32(f32, c.rows, c.dimension))
    // The server reads float32: the oracle does too, from the one float32 copy.
    clustered = { vectors: f32 }
    const d = c.dimension
    source = { rows: c.rows, dimension: d, readRows: (first, count) => f32.subarray(first * d, (first + count) * d) }
    queryVectors = Array.from({ length: queries }, (_, i) => asked.slice(i * d, (i + 1) * d))
    env = { DATABASE: path, SEARCH_CLUSTERS: 'auto' }
    log(`million: wrote ${path}`)
  }
  env = { ...env, SEARCH_CACHE: 'true', SEARCH_SPLIT_BLOCKS: String(SPLIT_BLOCKS) }

  const startOptions = { name: 'million', dataDir, workers: c.workers, env, readyTimeoutMs: READY_TIMEOUT_MS }
  log(`million: ${c.name} V=${c.rows} D=${c.dimension}: first start`)
  const first = await measureServerStart(startOptions)
  const firstLoad = loadAverage()
  log(`million: ready in ${(first.readyMs / 1000).toFixed(1)} s (${first.warm.length} workers warm)`)

  log(`million: ${c.name}: restart from the processed cache`)
  const { node, start: second } = await startMeasuredServer(startOptions)
  const restartLoad = loadAverage()
  log(`million: ready in ${(second.readyMs / 1000).toFixed(1)} s (${second.warm.length} workers warm)`)
  try {
    const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
    const { database: facts, fingerprint: _fingerprint, ...rest } = await client.searchConfig()
    const config: SearchConfig = rest
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('search', keys)
    const totals: number[] = []
    const phaseSamples = new Map<string, number[]>()
    const cpu: number[] = []
    let queryBytes = 0
    let responseBytes = 0
    let exact = true
    let checkedRows = 0
    let recall = 0
    for (const [i, vector] of queryVectors.entries()) {
      const query = search.encryptQuery(vector)
      const result = await client.search(query, keys ? { keySet: 'search' } : {})
      const timing = result.timing as Partial<Record<string, number>>
      // The server's phases, as the end-to-end bench sums them (not the durable store, not CPU).
      totals.push(serverTotalMs(timing))
      cpu.push(timing.cpu ?? Number.NaN)
      for (const phase of TIMING_PHASES) {
        const ms = timing[phase]
        if (phase !== 'cpu' && ms !== undefined) phaseSamples.set(phase, [...(phaseSamples.get(phase) ?? []), ms])
      }
      queryBytes = query.byteLength
      responseBytes = result.responses.reduce((sum, r) => sum + r.byteLength, 0)
      const scores = search.decryptScores(result.responses).scores
      // The oracle on a sample: the first, a middle and the last block's rows (every scored row when clustered).
      if (i < 2) {
        const rows = config.clusters
          ? [...scores.keys()].filter((row) => Number.isFinite(scores[row] as number))
          : [0, Math.floor(config.blocks.length / 2), config.blocks.length - 1].flatMap((b) => {
              const block = config.blocks[b]
              return block ? Array.from({ length: block.rows }, (_, k) => block.firstRow + k) : []
            })
        for (let k = 0; k < rows.length; ) {
          // Runs of consecutive rows are scaled together.
          let end = k + 1
          while (end < rows.length && rows[end] === (rows[end - 1] as number) + 1) end++
          const firstRow = rows[k] as number
          const oracle = oracleScores(config, source, vector, firstRow, end - k)
          for (let r = 0; r < end - k; r++) if (scores[firstRow + r] !== oracle[r]) exact = false
          checkedRows += end - k
          k = end
        }
      }
      if (clustered) {
        const hits = search.topK(scores, 10).map((hit) => hit.row)
        const truth = cosineTopK({ vectors: clustered.vectors, rows: c.rows, dimension: c.dimension }, vector, 10)
        recall += recallAt(hits, truth)
      }
      log(`million: ${c.name} query ${i + 1}/${queryVectors.length}: server ${totals.at(-1)?.toFixed(0)} ms`)
    }
    const afterMiB = treeStatusMiB(node.pid, 'VmRSS')
    const peakMiB = treeStatusMiB(node.pid, 'VmHWM')
    const afterLoad = loadAverage()
    const links = options.links
      ? await measureMillionLinks({
          node,
          search,
          keys,
          vectors: queryVectors.slice(0, options.links.samples),
          links: options.links.names,
          cacheDir: options.links.cacheDir,
          log,
        })
      : undefined
    const memory = searchProcessedMemory(config)
    return {
      ...c,
      configId: config.configId,
      kernel: second.warm[0]?.kernel ?? (facts.processing.form === 'kernel' ? 'keySwitch' : 'seal'),
      form: facts.processing.form ?? 'seal',
      blocks: config.blocks.length,
      clusters: config.clusters?.clusters ?? 0,
      processedMiB: Math.round(memory.bytes / MiB),
      firstStart: { readyMs: first.readyMs, processingMs: slowest(first, 'processingMs'), load: firstLoad },
      restart: {
        readyMs: second.readyMs,
        processingMs: slowest(second, 'processingMs'),
        cachedBlocks: slowest(second, 'cachedBlocks'),
        load: restartLoad,
      },
      rss: {
        readyMiB: second.rssMiB,
        afterQueriesMiB: afterMiB,
        peakFirstStartMiB: first.peakRssMiB,
        peakRestartMiB: peakMiB,
        load: afterLoad,
      },
      serverTotal: { ...spread(totals), load: afterLoad },
      serverCpu: spread(cpu.filter((value) => Number.isFinite(value))),
      queryBytes,
      responseBytes,
      checkedRows,
      exact,
      ...(clustered ? { recallAt10: recall / queryVectors.length } : {}),
      ...(links ? { links } : {}),
      products: queryProducts(config, c.workers),
      phases: Object.fromEntries([...phaseSamples].map(([phase, ms]) => [phase, spread(ms).median])),
    }
  } finally {
    await node.stop()
  }
}

/** Runs every case in a scratch directory it removes afterwards. */
export async function measureMillionRows(
  cases: readonly MillionRowsCase[],
  options: {
    queries: number
    log: (line: string) => void
    /** Hears the results so far after every case (a long run keeps what it measured). */
    onCase?: (results: readonly MillionRowsResult[]) => Promise<void>
    links?: { names: readonly SearchLinkName[]; samples: number; cacheDir: string }
  },
): Promise<MillionRowsResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-million-'))
  try {
    const out: MillionRowsResult[] = []
    for (const c of cases) {
      out.push(await measureMillionRowsCase(c, { ...options, dir }))
      await options.onCase?.(out)
    }
    return out
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
