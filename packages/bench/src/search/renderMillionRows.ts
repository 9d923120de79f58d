import type { MillionRowsResult, MillionRowsSource } from './measureMillionRows.ts'

type Load = MillionRowsResult['firstStart']['load']

const load = (l: Load) => l.join(' / ')
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** Native SEAL 4.1 with Intel HEXL, `multiply_plain` at n = 4096 [27, 28, 28] on this CPU (issue 27). */
const HEXL_PRODUCT_US = 3.0

/** A worker thread's CPU per plaintext product of its part: the busiest part's CPU ÷ its products. */
function productMicros(r: MillionRowsResult): number | undefined {
  if (!r.products || !Number.isFinite(r.serverCpu.median)) return undefined
  return (r.serverCpu.median * 1000) / r.products.busiestPart
}

function growth(from: number, to: number): string {
  return Number.isFinite(from) && from > 0 && Number.isFinite(to) ? `×${(to / from).toFixed(1)}` : '—'
}

/** Exact mode, V = 10k … 1M: how each cost grows with the rows (the rows of the report's exact runs). */
function scalingTable(results: readonly MillionRowsResult[]): string[] {
  const exact = results.filter((r) => r.name === 'exact').sort((a, b) => a.rows - b.rows)
  if (exact.length < 2) return []
  const nodeCpu = (r: MillionRowsResult) => r.serverCpu.median * (r.products?.parts ?? 1)
  const figures = (r: MillionRowsResult) => [
    r.processedMiB,
    r.rss.readyMiB,
    r.firstStart.readyMs,
    r.restart.readyMs,
    r.serverTotal.median,
    nodeCpu(r),
    r.queryBytes,
    r.responseBytes,
  ]
  const lines = [
    '',
    '## Exact mode: how each cost grows with V',
    '',
    "Same run settings as above (D = 384, WORKERS = 2, thread workers). Node CPU is the busier part's worker CPU × the parts the query was split into (one part below 16 blocks), about the CPU the node spends on a query; µs per product is a worker's CPU on its part ÷ that part's plaintext products, everything of the query included (query load, baby-step rotations, products, giant-step sums, response packing), beside native SEAL + Intel HEXL's 3.0 µs for `multiply_plain` alone.",
    '',
    '| V | blocks | processed copy | RSS ready | first start | cached restart (reading the cache) | server total median | node CPU / query | µs per product | query / response | load (1 min) at the queries |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ]
  for (const r of exact) {
    const micros = productMicros(r)
    lines.push(
      `| ${r.rows.toLocaleString('en')} | ${r.blocks} | ${r.processedMiB} MiB | ${r.rss.readyMiB} MiB | ${s(r.firstStart.readyMs)} | ${s(r.restart.readyMs)}${r.restart.processingMs === undefined ? '' : ` (${s(r.restart.processingMs)})`} | ${r.serverTotal.median.toFixed(0)} ms | ${nodeCpu(r).toFixed(0)} ms | ${micros === undefined ? '—' : micros.toFixed(1)} | ${(r.queryBytes / 1000).toFixed(1)} KB / ${(r.responseBytes / 1000).toFixed(1)} KB | ${r.serverTotal.load[0]} |`,
    )
  }
  const first = exact[0] as MillionRowsResult
  const last = exact.at(-1) as MillionRowsResult
  const [a, b] = [figures(first), figures(last)]
  const g = (i: number) => growth(a[i] as number, b[i] as number)
  lines.push(
    `| growth ×${(last.rows / first.rows).toFixed(0)} rows | ×${(last.blocks / first.blocks).toFixed(1)} | ${g(0)} | ${g(1)} | ${g(2)} | ${g(3)} | ${g(4)} | ${g(5)} | | ${g(6)} / ${g(7)} | |`,
  )
  return lines
}

/** Where each row's server total goes: the median of each Server-Timing phase, largest first. */
function phaseLines(results: readonly MillionRowsResult[]): string[] {
  const rows = results.filter((r) => r.phases && Object.keys(r.phases).length > 0)
  if (rows.length === 0) return []
  return [
    '',
    "Where the server total goes (median ms of each Server-Timing phase; of a split query, the longest part's):",
    '',
    ...rows.map((r) => {
      const phases = Object.entries(r.phases ?? {})
        .filter(([, ms]) => ms >= 0.5)
        .sort((a, b) => b[1] - a[1])
        .map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`)
      return `- ${r.name} V = ${r.rows.toLocaleString('en')}: ${phases.join(', ')}.`
    }),
  ]
}

/** Where each row came from, grouped by run. */
function sourcesOf(results: readonly MillionRowsResult[], fallback: MillionRowsSource): string[] {
  const groups = new Map<string, { source: MillionRowsSource; rows: string[] }>()
  for (const r of results) {
    const source = r.source ?? fallback
    const id = `${source.command}|${source.date}|${source.commit ?? ''}`
    const group = groups.get(id) ?? { source, rows: [] }
    group.rows.push(`${r.name} V = ${r.rows.toLocaleString('en')}`)
    groups.set(id, group)
  }
  return [...groups.values()].map(
    ({ source, rows }) =>
      `- ${rows.join(', ')}: \`${source.command}\` — ${source.date}${source.commit ? `, commit \`${source.commit}\`${source.dirty ? ' (dirty tree)' : ''}` : ''}.`,
  )
}

/** The markdown beside the JSON: one table of the figures, the targets, and the load beside each. */
export function renderMillionRows(report: { command: string; date: string; results: MillionRowsResult[] }): string {
  const lines = [
    '# Private search at a million rows, one node',
    '',
    `\`${report.command}\` — ${report.date}. One node (\`node src/main.ts\`, thread workers), this machine: 2 cores shared with other work; the load average (1 / 5 / 15 min) is printed beside each figure. Targets of issue 27: RSS ≤ 6 GB, cached restart ≤ 30 s, first start ≤ 5 min, exact median server total ≤ 1,000 ms, cluster-private recall@10 ≥ 0.9 and query + response ≤ 1 MB.`,
    '',
    '| case | V × D | workers | kernel, processed copy | first start (processing) | cached restart (reading the cache) | RSS ready / after queries / peak | server total median (min, n) | server CPU median (busier part; µs per product) | query / response | scores vs oracle | recall@10 |',
    '|---|---|---:|---|---|---|---|---|---|---|---|---:|',
  ]
  for (const r of report.results) {
    const micros = productMicros(r)
    lines.push(
      `| ${r.name}${r.clusters ? ` (C = ${r.clusters})` : ''} | ${r.rows.toLocaleString('en')} × ${r.dimension} | ${r.workers} | ${r.kernel}, ${r.processedMiB} MiB ${r.form === 'kernel' ? 'u32 residues, one shared copy' : 'SEAL plaintexts per worker'} | ${s(r.firstStart.readyMs)} (${s(r.firstStart.processingMs)}); load ${load(r.firstStart.load)} | ${s(r.restart.readyMs)} (${r.restart.processingMs === undefined ? '' : `${s(r.restart.processingMs)}, `}${r.restart.cachedBlocks}/${r.blocks} blocks cached); load ${load(r.restart.load)} | ${r.rss.readyMiB} / ${r.rss.afterQueriesMiB} / ${Math.max(r.rss.peakFirstStartMiB, r.rss.peakRestartMiB)} MiB; load ${load(r.rss.load)} | ${r.serverTotal.median.toFixed(0)} ms (${r.serverTotal.min.toFixed(0)}, ${r.serverTotal.samples}); load ${load(r.serverTotal.load)} | ${r.serverCpu.median.toFixed(0)} ms${micros === undefined ? '' : `; ${micros.toFixed(1)} µs`} | ${(r.queryBytes / 1000).toFixed(1)} KB / ${(r.responseBytes / 1000).toFixed(1)} KB | ${r.exact ? 'exact' : 'NOT EXACT'} (${r.checkedRows.toLocaleString('en')} rows) | ${r.recallAt10 === undefined ? '—' : r.recallAt10.toFixed(2)} |`,
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
    `RSS is VmRSS (and VmHWM, the peak) of the server process and its descendants from /proc: with thread workers, one process holding the main thread, both workers and the one shared copy of the diagonals. Server total is the sum of the reply's Server-Timing phases (auth, decode, queue, key load, deserialize, compute, serialize, transfer, encode: all but the durable store), as the end-to-end bench counts it; server CPU is the CPU time of a worker thread on the query — of a query split across both workers, the busier part's (the server reports the longest part of each phase), so the node's CPU per query is about twice it. µs per product is that CPU ÷ the plaintext products of its part (everything of the query included, not the products alone), beside native SEAL + Intel HEXL's ${HEXL_PRODUCT_US.toFixed(1)} µs for one \`multiply_plain\` at n = 4096 [27, 28, 28] on this CPU. The sample compared with the oracle is the first, a middle and the last block of rows (exact), or every row of the scored cluster (cluster-private), for two queries.`,
    ...phaseLines(report.results),
    ...scalingTable(report.results),
    '',
    'Rows measured by:',
    '',
    ...sourcesOf(report.results, { command: report.command, date: report.date }),
  )
  return `${lines.join('\n')}\n`
}
