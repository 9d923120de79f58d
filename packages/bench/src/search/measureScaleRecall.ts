import {
  batchingPrime,
  clusterSearchDatabase,
  maxSearchScale,
  nearestClusters,
  resolveSearchConfig,
  SEARCH_PLAIN_MODULUS,
  scaleQueryVector,
  syntheticSearchDatabase,
  topKIndices,
} from '@sealbox/he-core/search'

/*
 * The plaintext study behind cluster-private recall (issue 27): the server scores rows with
 * integers x̃·q̃, x̃ = round(s·x/‖x‖), so a score's rounding error is ≈ s·(‖δx‖ + ‖δq‖) on s²·cos,
 * a std of ≈ √(D/6)/s in cosine units. Where the data's 10th and 11th neighbours are closer than
 * that, the integer top 10 differs from float cosine's. This measures recall@10 of the integer
 * scores against float cosine over every row, as a function of s, on the million bench's data
 * (V/100 topics under V/10,000 subjects, seed 11; queries seed 12 drawn from the same topics)
 * and the same float32 copy the server reads. No encryption: the integer scores are what exact
 * mode decrypts, and what cluster-private mode decrypts for the rows of the probed cluster.
 *
 * Only rows that can reach the integer top 10 are scored at each s, and the filter is proven:
 * |x̃·q̃ − s²·cos| ≤ s·√D + D/4 (each coordinate moves by ≤ ½), so a row with
 * cos < cos₁₀ − 2(s·√D + D/4)/s² scores below every true top-10 row and never enters.
 */

/** One s of the study at one V. */
export interface ScaleRecallRow {
  rows: number
  dimension: number
  /** Bits of t (the batching prime), or undefined for an s given directly. */
  plainBits?: number
  plainModulus?: number
  scale: number
  /** Mean recall@10 of the integer top 10 against float cosine over every row, over all queries. */
  recallAt10: number
  /** The same over the first `benchQueries` queries (the million bench's own: `--samples`). */
  recallAt10Bench: number
  /** Queries whose integer top 10 is float cosine's exactly (as a set). */
  perfectQueries: number
  /** Rows scored in integers per query at this s (the proven candidate set), largest. */
  maxCandidates: number
  /**
   * With `probe`: the same recall of the integer top 10 of the query's nearest cluster only
   * (the clustering of the server's `SEARCH_CLUSTERS=auto` config at V): cluster-private
   * search's recall in plaintext.
   */
  clusterRecallAt10?: number
}

/** What the study measured, with the data's own neighbour gaps. */
export interface ScaleRecallReport {
  queries: number
  benchQueries: number
  rows: ScaleRecallRow[]
  /** Per V: median and 10th percentile of cos₁₀ − cos₁₁ over the queries (what the error must stay under). */
  gaps: { rows: number; median: number; p10: number }[]
  /** With `probe`, per V: the auto config's C, t and s, and how much of the float top 10 its nearest cluster holds. */
  probes?: { rows: number; clusters: number; plainModulus: number; scale: number; nearestHolds: number }[]
}

/**
 * The million bench's cluster-private data at V rows, float32 as the server reads it, and
 * `queries` queries drawn like it: V/100 topics grouped under `subjects` (0: independent topics).
 */
export function millionBenchData(
  rows: number,
  dimension: number,
  queries: number,
  subjects = Math.max(1, Math.round(rows / 10_000)),
) {
  const grouping = { topics: Math.max(1, Math.round(rows / 100)), ...(subjects ? { subjects } : {}) }
  const vectors = new Float32Array(syntheticSearchDatabase({ rows, dimension, seed: 11, ...grouping }).vectors)
  const asked = syntheticSearchDatabase({ rows: queries, dimension, seed: 12, topicSeed: 11, ...grouping })
  return { vectors, queries: asked.vectors }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN
}

/**
 * Recall@10 of integer scores against float cosine for each s (given directly, or the largest
 * s a `plainBits`-bit batching prime allows at this D), at each V.
 */
export function measureScaleRecall(options: {
  rows: readonly number[]
  dimension: number
  queries: number
  benchQueries: number
  plainBits: readonly number[]
  scales?: readonly number[]
  polyModulusDegree?: number
  /** Also cluster each V as `SEARCH_CLUSTERS=auto` does and score the nearest cluster only. */
  probe?: boolean
  log: (line: string) => void
}): ScaleRecallReport {
  const { dimension: d, log } = options
  const n = options.polyModulusDegree ?? 4096
  // Today's t (65537) beside the largest batching prime of each bit count.
  const moduli = [
    { plainBits: Math.ceil(Math.log2(SEARCH_PLAIN_MODULUS)), plainModulus: SEARCH_PLAIN_MODULUS },
    ...options.plainBits.map((bits) => ({ plainBits: bits, plainModulus: batchingPrime(n, bits) })),
  ]
  const settings = [
    ...moduli.map((modulus) => ({ ...modulus, scale: maxSearchScale(modulus.plainModulus, d, 1) })),
    ...(options.scales ?? []).map((scale) => ({ scale })),
  ].sort((a, b) => a.scale - b.scale)
  const report: ScaleRecallReport = {
    queries: options.queries,
    benchQueries: options.benchQueries,
    rows: [],
    gaps: [],
  }
  const errorBound = (s: number) => (2 * (s * Math.sqrt(d) + d / 4)) / (s * s)
  const widest = Math.max(...settings.map((setting) => errorBound(setting.scale)))
  for (const rows of options.rows) {
    log(`scale recall: V=${rows} D=${d}: generating the bench's data`)
    const data = millionBenchData(rows, d, options.queries)
    const inverseNorms = new Float64Array(rows)
    for (let row = 0; row < rows; row++) {
      let squares = 0
      for (let j = 0; j < d; j++) squares += (data.vectors[row * d + j] as number) ** 2
      inverseNorms[row] = 1 / Math.sqrt(squares)
    }
    const recall = settings.map(() => [] as number[])
    const clusterRecall = settings.map(() => [] as number[])
    let nearestHolds = 0
    const candidatesMax = settings.map(() => 0)
    const config = options.probe
      ? resolveSearchConfig({ rows, dimension: d, clusters: 'auto' }, { maxProcessedBytes: Number.POSITIVE_INFINITY })
      : undefined
    if (options.probe)
      log(`scale recall: V=${rows}: clustering as SEARCH_CLUSTERS=auto (C=${config?.clusters?.clusters})`)
    const clustering =
      config?.clusters &&
      // A row source over the float32 copy the server reads (no float64 copy of a million rows).
      clusterSearchDatabase(config, {
        rows,
        dimension: d,
        readRows: (first, count) => data.vectors.subarray(first * d, (first + count) * d),
      })
    /** The integer top 10 at s among `pool` (ascending rows), scoring only rows with cos ≥ `floor`. */
    const integerTop10 = (pool: readonly number[], floor: number, scale: number, query: ArrayLike<number>) => {
      const candidates = pool.filter((row) => (cosines[row] as number) >= floor)
      const fields = { dimension: d, metric: 'cosine' as const, maxNorm: 1, scale }
      const q = scaleQueryVector(fields, query)
      const scores = candidates.map((row) => {
        const x = scaleQueryVector(fields, data.vectors.subarray(row * d, (row + 1) * d))
        let sum = 0
        for (let j = 0; j < d; j++) sum += (x[j] as number) * (q[j] as number)
        return sum
      })
      return { hits: topKIndices(scores, 10).map((index) => candidates[index] as number), scored: candidates.length }
    }
    const gaps: number[] = []
    const cosines = new Float64Array(rows)
    for (let i = 0; i < options.queries; i++) {
      const query = data.queries.subarray(i * d, (i + 1) * d)
      let qq = 0
      for (let j = 0; j < d; j++) qq += (query[j] as number) ** 2
      const qNorm = Math.sqrt(qq)
      for (let row = 0; row < rows; row++) {
        let dot = 0
        const base = row * d
        for (let j = 0; j < d; j++) dot += (data.vectors[base + j] as number) * (query[j] as number)
        cosines[row] = (dot * (inverseNorms[row] as number)) / qNorm
      }
      const truth = topKIndices(cosines, 11)
      const tenth = cosines[truth[9] as number] as number
      gaps.push(tenth - (cosines[truth[10] as number] as number))
      const truthSet = new Set(truth.slice(0, 10))
      // Every row that can reach the integer top 10 at the smallest s, in row order (ties rank by row).
      const pool: number[] = []
      for (let row = 0; row < rows; row++) if ((cosines[row] as number) >= tenth - widest) pool.push(row)
      for (const [k, setting] of settings.entries()) {
        const { hits, scored } = integerTop10(pool, tenth - errorBound(setting.scale), setting.scale, query)
        candidatesMax[k] = Math.max(candidatesMax[k] as number, scored)
        recall[k]?.push(hits.filter((row) => truthSet.has(row)).length / 10)
      }
      if (clustering && config) {
        const nearest = nearestClusters(clustering, config.metric, query, 1)[0] as number
        const members = [...(clustering.members[nearest] ?? [])].sort((a, b) => a - b)
        nearestHolds += members.filter((row) => truthSet.has(row)).length / 10 / options.queries
        // The cluster's own 10th row sets the floor: only its rows can enter its top 10.
        const tenthHere = cosines[
          members[
            topKIndices(
              members.map((row) => cosines[row] as number),
              10,
            )[9] as number
          ] as number
        ] as number
        for (const [k, setting] of settings.entries()) {
          const { hits } = integerTop10(members, tenthHere - errorBound(setting.scale), setting.scale, query)
          clusterRecall[k]?.push(hits.filter((row) => truthSet.has(row)).length / 10)
        }
      }
      if ((i + 1) % 10 === 0) log(`scale recall: V=${rows}: ${i + 1}/${options.queries} queries`)
    }
    const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
    for (const [k, setting] of settings.entries()) {
      const values = recall[k] ?? []
      report.rows.push({
        rows,
        dimension: d,
        ...setting,
        recallAt10: mean(values),
        recallAt10Bench: mean(values.slice(0, options.benchQueries)),
        perfectQueries: values.filter((value) => value === 1).length,
        maxCandidates: candidatesMax[k] as number,
        ...(clustering ? { clusterRecallAt10: mean(clusterRecall[k] ?? []) } : {}),
      })
    }
    if (clustering && config) {
      report.probes = [
        ...(report.probes ?? []),
        {
          rows,
          clusters: clustering.members.length,
          plainModulus: config.plainModulus,
          scale: config.scale,
          nearestHolds,
        },
      ]
    }
    const sorted = [...gaps].sort((a, b) => a - b)
    report.gaps.push({ rows, median: percentile(sorted, 0.5), p10: percentile(sorted, 0.1) })
  }
  return report
}

/** The study as a Markdown table. */
export function renderScaleRecall(report: ScaleRecallReport, command: string): string {
  const lines = [
    '# Recall@10 of the integer scores against float cosine, by scale s',
    '',
    `\`${command}\``,
    '',
    `The million bench's cluster-private data (V/100 topics under V/10,000 subjects, float32) and its queries (${report.queries}; the first ${report.benchQueries} are the bench's \`--samples ${report.benchQueries}\`). Integer scores over every row (proven candidate filter), no encryption: what exact mode decrypts, and what cluster-private mode decrypts for the probed cluster's rows. s for a t of b bits: the largest with (s + √D/2)² ≤ (t − 1)/2.`,
    '',
    `| V | t bits | t | s | recall@10 (all queries) | recall@10 (bench queries) | queries exact top 10 | candidates scored (max) |${report.probes ? ' nearest cluster only |' : ''}`,
    `|---:|---:|---:|---:|---:|---:|---:|---:|${report.probes ? '---:|' : ''}`,
  ]
  for (const row of report.rows) {
    const probed =
      row.clusterRecallAt10 === undefined ? (report.probes ? ' — |' : '') : ` ${row.clusterRecallAt10.toFixed(3)} |`
    lines.push(
      `| ${row.rows.toLocaleString('en-US')} | ${row.plainBits ?? '—'} | ${row.plainModulus ?? '—'} | ${row.scale} | ${row.recallAt10.toFixed(3)} | ${row.recallAt10Bench.toFixed(3)} | ${row.perfectQueries} / ${report.queries} | ${row.maxCandidates.toLocaleString('en-US')} |${probed}`,
    )
  }
  if (report.probes) {
    lines.push(
      '',
      "Nearest cluster only: the clustering of the server's `SEARCH_CLUSTERS=auto` config at V (balanced k-means, as the server clusters), the integer top 10 among the query's nearest cluster's rows against float cosine over every row — cluster-private search's recall, in plaintext.",
      '',
      '| V | C (auto) | its t | its s | float top 10 held by the nearest cluster |',
      '|---:|---:|---:|---:|---:|',
    )
    for (const probe of report.probes) {
      lines.push(
        `| ${probe.rows.toLocaleString('en-US')} | ${probe.clusters} | ${probe.plainModulus} | ${probe.scale} | ${probe.nearestHolds.toFixed(3)} |`,
      )
    }
  }
  lines.push('', '| V | cos₁₀ − cos₁₁, median | 10th percentile |', '|---:|---:|---:|')
  for (const gap of report.gaps) {
    lines.push(`| ${gap.rows.toLocaleString('en-US')} | ${gap.median.toFixed(5)} | ${gap.p10.toFixed(5)} |`)
  }
  return `${lines.join('\n')}\n`
}
