import { readdirSync, readFileSync } from 'node:fs'
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
  syntheticSearchDatabase,
  syntheticSearchQuery,
  syntheticSearchRows,
  topKIndices,
} from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { loadAverage } from '../core/machineInfo.ts'
import { type Spread, spread } from '../core/stats.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { type MillionLinkRow, measureMillionLinks } from './measureMillionLinks.ts'

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
  restart: { readyMs: number; cachedBlocks: number; load: Load }
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
}

const MiB = 2 ** 20

/** Resident and peak resident bytes of a process and every descendant (a child-process executor's workers too). */
function treeMemory(root: number | undefined): { rss: number; peak: number } {
  if (root === undefined) return { rss: Number.NaN, peak: Number.NaN }
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // A process that ended while we listed /proc.
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid)
  }
  let rss = 0
  let peak = 0
  for (const pid of tree) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      rss += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
      peak += Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
    } catch {
      // Gone meanwhile.
    }
  }
  return { rss, peak }
}

interface Started {
  node: ServerNode
  readyMs: number
  warm: Record<string, unknown>[]
}

async function start(dataDir: string, env: Record<string, string>, log: (line: string) => void): Promise<Started> {
  const started = performance.now()
  const node = await ServerNode.start({
    name: 'million',
    dataDir,
    readyTimeoutMs: 60 * 60_000,
    env: { ...BENCH_SERVER_ENV, LOG_LEVEL: 'info', ...env },
  })
  const readyMs = performance.now() - started
  const warm = (await node.log())
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('worker warm'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  log(`million: ready in ${(readyMs / 1000).toFixed(1)} s (${warm.length} workers warm)`)
  return { node, readyMs, warm }
}

function slowest(warm: readonly Record<string, unknown>[], key: string): number {
  return Math.max(0, ...warm.map((entry) => Number(entry[key] ?? 0)))
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

function cosineTop10(vectors: ArrayLike<number>, rows: number, d: number, query: ArrayLike<number>): number[] {
  const scores = new Float64Array(rows)
  for (let row = 0; row < rows; row++) {
    let dot = 0
    let xx = 0
    for (let j = 0; j < d; j++) {
      const x = vectors[row * d + j] as number
      dot += x * (query[j] as number)
      xx += x * x
    }
    scores[row] = dot / Math.sqrt(xx)
  }
  return topKIndices(scores, 10)
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
    // Topics as the cluster-private bench draws them (V/100), grouped under subjects when the case has them; queries drawn like the data.
    const topics = Math.max(1, Math.round(c.rows / 100))
    const grouping = { topics, ...(c.subjects ? { subjects: c.subjects } : {}) }
    const f32 = new Float32Array(
      syntheticSearchDatabase({ rows: c.rows, dimension: c.dimension, seed: 11, ...grouping }).vectors,
    )
    const path = join(dir, `clustered-${c.rows}x${c.dimension}.npy`)
    await writeFile(path, encodeNpyFloat32(f32, c.rows, c.dimension))
    // The server reads float32: the oracle does too, from the one float32 copy.
    clustered = { vectors: f32 }
    const d = c.dimension
    source = { rows: c.rows, dimension: d, readRows: (first, count) => f32.subarray(first * d, (first + count) * d) }
    const asked = syntheticSearchDatabase({ rows: queries, dimension: d, seed: 12, topicSeed: 11, ...grouping })
    queryVectors = Array.from({ length: queries }, (_, i) => asked.vectors.slice(i * d, (i + 1) * d))
    env = { DATABASE: path, SEARCH_CLUSTERS: 'auto' }
    log(`million: wrote ${path}`)
  }
  env = { ...env, WORKERS: String(c.workers), EXECUTOR: 'pool', SEARCH_CACHE: 'true' }

  log(`million: ${c.name} V=${c.rows} D=${c.dimension}: first start`)
  const first = await start(dataDir, env, log)
  const firstLoad = loadAverage()
  const peakFirst = treeMemory(first.node.pid).peak
  await first.node.stop()

  log(`million: ${c.name}: restart from the processed cache`)
  const second = await start(dataDir, env, log)
  const restartLoad = loadAverage()
  const node = second.node
  try {
    const ready = treeMemory(node.pid)
    const client = (await new SealboxClient({ baseUrl: node.url }).createSession()).client
    const { database: facts, fingerprint: _fingerprint, ...rest } = await client.searchConfig()
    const config: SearchConfig = rest
    const ctx = await getHeContext(config.params)
    using search = PrivateSearchClient.create(ctx, config)
    const keys = search.evaluationKeys()
    if (keys) await client.putKeySet('search', keys)
    const totals: number[] = []
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
      totals.push(
        TIMING_PHASES.filter((phase) => phase !== 'store' && phase !== 'cpu').reduce(
          (sum, phase) => sum + (timing[phase] ?? 0),
          0,
        ),
      )
      cpu.push(timing.cpu ?? Number.NaN)
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
        const truth = cosineTop10(clustered.vectors, c.rows, c.dimension, vector)
        recall += hits.filter((row) => truth.includes(row)).length / 10
      }
      log(`million: ${c.name} query ${i + 1}/${queryVectors.length}: server ${totals.at(-1)?.toFixed(0)} ms`)
    }
    const after = treeMemory(node.pid)
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
      kernel: String(second.warm[0]?.kernel ?? (facts.processing.form === 'kernel' ? 'keySwitch' : 'seal')),
      form: facts.processing.form ?? 'seal',
      blocks: config.blocks.length,
      clusters: config.clusters?.clusters ?? 0,
      processedMiB: Math.round(memory.bytes / MiB),
      firstStart: { readyMs: first.readyMs, processingMs: slowest(first.warm, 'processingMs'), load: firstLoad },
      restart: { readyMs: second.readyMs, cachedBlocks: slowest(second.warm, 'cachedBlocks'), load: restartLoad },
      rss: {
        readyMiB: Math.round(ready.rss / MiB),
        afterQueriesMiB: Math.round(after.rss / MiB),
        peakFirstStartMiB: Math.round(peakFirst / MiB),
        peakRestartMiB: Math.round(after.peak / MiB),
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

const load = (l: Load) => l.join(' / ')
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The markdown beside the JSON: one table of the figures, the targets, and the load beside each. */
export function renderMillionRows(report: { command: string; date: string; results: MillionRowsResult[] }): string {
  const lines = [
    '# Private search at a million rows, one node',
    '',
    `\`${report.command}\` — ${report.date}. One node (\`node src/main.ts\`, thread workers), this machine: 2 cores shared with other work; the load average (1 / 5 / 15 min) is printed beside each figure. Targets of issue 27: RSS ≤ 6 GB, cached restart ≤ 30 s, first start ≤ 5 min, exact median server total ≤ 1,000 ms, cluster-private recall@10 ≥ 0.9 and query + response ≤ 1 MB.`,
    '',
    '| case | V × D | workers | kernel, processed copy | first start (processing) | cached restart | RSS ready / after queries / peak | server total median (min, n) | server CPU median (busier part) | query / response | scores vs oracle | recall@10 |',
    '|---|---|---:|---|---|---|---|---|---|---|---|---:|',
  ]
  for (const r of report.results) {
    lines.push(
      `| ${r.name}${r.clusters ? ` (C = ${r.clusters})` : ''} | ${r.rows.toLocaleString('en')} × ${r.dimension} | ${r.workers} | ${r.kernel}, ${r.processedMiB} MiB ${r.form === 'kernel' ? 'u32 residues, one shared copy' : 'SEAL plaintexts per worker'} | ${s(r.firstStart.readyMs)} (${s(r.firstStart.processingMs)}); load ${load(r.firstStart.load)} | ${s(r.restart.readyMs)} (${r.restart.cachedBlocks}/${r.blocks} blocks cached); load ${load(r.restart.load)} | ${r.rss.readyMiB} / ${r.rss.afterQueriesMiB} / ${Math.max(r.rss.peakFirstStartMiB, r.rss.peakRestartMiB)} MiB; load ${load(r.rss.load)} | ${r.serverTotal.median.toFixed(0)} ms (${r.serverTotal.min.toFixed(0)}, ${r.serverTotal.samples}); load ${load(r.serverTotal.load)} | ${r.serverCpu.median.toFixed(0)} ms | ${(r.queryBytes / 1000).toFixed(1)} KB / ${(r.responseBytes / 1000).toFixed(1)} KB | ${r.exact ? 'exact' : 'NOT EXACT'} (${r.checkedRows.toLocaleString('en')} rows) | ${r.recallAt10 === undefined ? '—' : r.recallAt10.toFixed(2)} |`,
    )
  }
  for (const r of report.results.filter((result) => result.name === 'cluster-private')) {
    const topics = Math.max(1, Math.round(r.rows / 100)).toLocaleString('en')
    lines.push(
      '',
      `Cluster-private data (${r.rows.toLocaleString('en')} rows): ${topics} topics of ~100 rows, a row = normalise(topic + 0.5 · Gaussian / √D) (cosine ≈ 0.9 to its topic)${r.subjects ? `, the topics grouped under ${r.subjects} subjects, a topic = normalise(subject + Gaussian / √D) (cosine ≈ 0.7 to its subject), as a corpus's embeddings group by field` : ', every topic independent (nearly orthogonal to every other)'}; queries drawn like the rows. Recall@10 is the client's top 10 (decrypted scores of its nearest cluster) against exact float cosine over all ${r.rows.toLocaleString('en')} rows.`,
    )
  }
  const linked = report.results.filter((r) => r.links && r.links.length > 0)
  if (linked.length > 0) {
    lines.push(
      '',
      '## End to end over the shaped links',
      '',
      'The same restarted node, after the queries above: a client in this process (node-seal, one thread) opens a session through a link shaped by Toxiproxy (latency toxic: half the round trip each way; bandwidth toxic per direction), uploads its keys, sends one untimed query, then per sample encrypts, sends, waits, decrypts and ranks the top 10. Medians; upload and download are bytes ÷ rate (what the shaper enforces), "network" the measured request time minus the server total. A row marked "model" ran over loopback with bytes ÷ rate and one round trip added (Toxiproxy unavailable). Target of issue 27: cluster-private end to end over broadband ≤ 1 s.',
      '',
      '| case | link | encrypt | upload | server total | download | network (measured) | decrypt + rank | **end to end** median (min, n) | load |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    )
    for (const r of linked) {
      for (const l of r.links ?? []) {
        const ms = (value: number) => `${value.toFixed(0)} ms`
        lines.push(
          `| ${r.name}${r.clusters ? ` (C = ${r.clusters})` : ''} | ${l.link.name} ${l.link.upMbps}/${l.link.downMbps} Mbit/s, ${l.link.rttMs} ms${l.shapedBy === 'model' ? ' (model)' : ''} | ${ms(l.encryptMs)} | ${ms(l.uploadMs)} | ${ms(l.serverMs)} | ${ms(l.downloadMs)} | ${ms(l.networkMs)} | ${ms(l.decryptRankMs)} | **${ms(l.endToEndMs)}** (${ms(l.endToEndMinMs)}, ${l.samples}) | ${load(l.load)} |`,
        )
      }
    }
  }
  lines.push(
    '',
    "RSS is VmRSS (and VmHWM, the peak) of the server process and its descendants from /proc: with thread workers, one process holding the main thread, both workers and the one shared copy of the diagonals. Server total is the sum of the reply's Server-Timing phases (auth, decode, queue, key load, deserialize, compute, serialize, transfer, encode: all but the durable store), as the end-to-end bench counts it; server CPU is the CPU time of a worker thread on the query — of a query split across both workers, the busier part's (the server reports the longest part of each phase), so the node's CPU per query is about twice it. The sample compared with the oracle is the first, a middle and the last block of rows (exact), or every row of the scored cluster (cluster-private), for two queries.",
  )
  return `${lines.join('\n')}\n`
}
