import { formatMillis, formatRatio } from '../core/formatNumbers.ts'
import { type MarkdownColumn, markdownTable } from '../core/markdownTable.ts'
import type { Workload } from '../load/PreparedWorkload.ts'
import type { CostFloodRecord } from './CostFloodRecord.ts'
import type { RunStatKey, RunStats } from './runStats.ts'
import { type CellRecord, cellOf, type ServerBenchReport } from './ServerBenchReport.ts'
import type { RowSpec } from './serverBenchFlags.ts'

/** Milliseconds with 3 significant digits (`0.412`, `12.3`, `187`), `–` for none. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  if (value >= 100) return String(Math.round(value))
  if (value === 0) return '0'
  return value.toPrecision(3)
}

const rate = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(value < 10 ? 1 : 0)

const pair = (stats: RunStats | undefined, a: RunStatKey, b: RunStatKey) =>
  stats && (stats[a] !== null || stats[b] !== null) ? `${ms(stats[a])} / ${ms(stats[b])}` : '–'

const rowLabel = (rows: readonly RowSpec[], id: string) => rows.find((row) => row.id === id)?.label ?? id

/** The main table of one workload: one line per row. */
export function mainTable(report: ServerBenchReport, workload: Workload): string {
  const { rows, concurrency } = report.settings
  const top = Math.max(...concurrency)
  const columns: MarkdownColumn[] = [
    { heading: 'row' },
    { heading: 'compute ms (c=1)', align: 'right' },
    ...concurrency.map((c) => ({ heading: `c=${c} p50 / p99 ms`, align: 'right' as const })),
    { heading: `req/s at c=${concurrency.join(' / ')}`, align: 'right' },
    { heading: `/healthz p50 / p99 ms (c=${top}, fresh conn.)`, align: 'right' },
    { heading: `/healthz p99 ms (c=${top}, keep-alive)`, align: 'right' },
    { heading: `loop delay p99 ms (c=${top})`, align: 'right' },
  ]
  const lines = rows.map((row) => {
    const cell = (c: number) => cellOf(report.cells, row.id, workload, c)
    const topCell = cell(top)?.stats
    const flag = report.cells.some((x) => x.row === row.id && x.workload === workload && x.verified === false)
      ? ' ⚠'
      : ''
    return [
      `${row.label}${flag}`,
      ms(cell(Math.min(...concurrency))?.stats.computeP50),
      ...concurrency.map((c) => pair(cell(c)?.stats, 'latencyP50', 'latencyP99')),
      concurrency.map((c) => rate(cell(c)?.stats.throughput)).join(' / '),
      pair(topCell, 'healthzFreshP50', 'healthzFreshP99'),
      ms(topCell?.healthzKeepAliveP99),
      ms(topCell?.loopDelayP99),
    ]
  })
  return markdownTable(columns, lines)
}

/** Every cell of one workload with all its medians. */
export function detailTable(report: ServerBenchReport, workload: Workload): string {
  const columns: MarkdownColumn[] = [
    { heading: 'row' },
    { heading: 'c', align: 'right' },
    { heading: 'requests', align: 'right' },
    { heading: 'errors', align: 'right' },
    { heading: 'compute ms', align: 'right' },
    { heading: 'executor ms', align: 'right' },
    { heading: 'queue ms', align: 'right' },
    { heading: 'p50 / p95 / p99 ms', align: 'right' },
    { heading: 'req/s', align: 'right' },
    { heading: '/healthz fresh p50 / p99 / max', align: 'right' },
    { heading: '/healthz keep-alive p50 / p99 / max', align: 'right' },
    { heading: 'probes (failed)', align: 'right' },
    { heading: 'loop delay p50 / p99 / max', align: 'right' },
    { heading: 'answers exact', align: 'center' },
  ]
  const lines = report.cells
    .filter((cell) => cell.workload === workload)
    .map((cell: CellRecord) => {
      const s = cell.stats
      return [
        rowLabel(report.settings.rows, cell.row),
        String(cell.concurrency),
        ms(s.requests),
        String(cell.errors),
        ms(s.computeP50),
        ms(s.executorP50),
        ms(s.queueP50),
        `${ms(s.latencyP50)} / ${ms(s.latencyP95)} / ${ms(s.latencyP99)}`,
        rate(s.throughput),
        s.healthzFreshP50 === null
          ? '–'
          : `${ms(s.healthzFreshP50)} / ${ms(s.healthzFreshP99)} / ${ms(s.healthzFreshMax)}`,
        s.healthzKeepAliveP50 === null
          ? '–'
          : `${ms(s.healthzKeepAliveP50)} / ${ms(s.healthzKeepAliveP99)} / ${ms(s.healthzKeepAliveMax)}`,
        s.probes === null ? '–' : `${ms(s.probes)} (${ms(s.probeFailures)})`,
        s.loopDelayP50 === null ? '–' : `${ms(s.loopDelayP50)} / ${ms(s.loopDelayP99)} / ${ms(s.loopDelayMax)}`,
        cell.verified === null ? '–' : cell.verified ? 'yes' : '**NO**',
      ]
    })
  return markdownTable(columns, lines)
}

/** The headline sentences: `/healthz` p99 under load, pool vs inline, and the ratio. */
export function headlineLines(report: ServerBenchReport): string[] {
  const lines: string[] = []
  for (const h of report.headline) {
    const title = report.workloads.find((w) => w.workload === h.workload)?.title ?? h.workload
    const inline = h.freshP99.inline
    const pool = h.pool === undefined ? undefined : h.freshP99[h.pool]
    const others = Object.entries(h.freshP99)
      .filter(([id]) => id !== 'inline' && id !== h.pool)
      .map(([id, value]) => `${id} ${ms(value)} ms`)
    if (inline !== undefined && pool !== undefined) {
      lines.push(
        `- **${title}, ${h.concurrency} clients: \`/healthz\` p99 ${ms(inline)} ms with \`inline\` vs ${ms(pool)} ms with \`${h.pool}\`** ` +
          `(${h.ratio === null ? 'no ratio' : `${formatRatio(h.ratio)} slower inline`}; fresh connections` +
          `${others.length ? `; ${others.join(', ')}` : ''}; idle: ${Object.entries(h.idleFreshP99)
            .map(([id, value]) => `${id} ${ms(value)}`)
            .join(', ')} ms).`,
      )
    }
    const direct = h.computeP50.direct
    const computes = Object.entries(h.computeP50)
      .filter(([, value]) => value !== null)
      .map(([id, value]) => `${id} ${ms(value)}`)
    if (computes.length > 0) {
      const spread = Object.entries(h.computeP50)
        .filter(([id, value]) => id !== 'direct' && value !== null && direct)
        .map(([, value]) => (value as number) / (direct as number))
      lines.push(
        `- ${title}: HE compute inside the executor (Server-Timing \`compute\`, one client): ${computes.join(', ')} ms` +
          (spread.length
            ? ` — ${formatRatio(Math.min(...spread))}–${formatRatio(Math.max(...spread))} of Direct (SwiftNIO's case was ~80×).`
            : '.'),
      )
    }
  }
  return lines
}

/** The one-line description of the machine and run. */
export function runFacts(report: ServerBenchReport): string {
  const m = report.machine
  return (
    `${report.date}; ${m.cpuModel}, ${m.cores} logical cores, Node ${m.node}, ${m.os}; ` +
    `load average ${report.loadAverageBefore.join(' / ')} before, ${report.loadAverageAfter.join(' / ')} after; ` +
    `took ${formatMillis(report.durationMs)}.`
  )
}

/** How the table was measured (shared by Markdown and HTML). */
export function methodLines(report: ServerBenchReport): string[] {
  const s = report.settings
  return [
    `- Every server row is a real server process (\`node --conditions=@sealbox/source apps/server/src/main.ts\`, loopback, a free port), started, ready on \`/readyz\` (workers warm, database processed), warmed with a few requests per workload, measured, stopped; it is started afresh for each repeat. Server settings besides EXECUTOR and WORKERS: ${Object.entries(
      report.serverEnv,
    )
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ')} (load shedding off, so an overloaded loop shows as latency, not 503s).`,
    `- The load generator is its own Node process: closed loop, ${s.concurrency.join(' / ')} requests in flight through \`SealboxClient\` over keep-alive connections (undici \`fetch\`), max(2, c) unrecorded warm-up requests, then at most ${s.requests} requests or ${s.durationSeconds} s per cell. Keys and queries were made once, client side (he-core), before any server started; each server got the key sets uploaded once. Every run decrypts the first answer to each distinct request and compares it with the plaintext oracle.`,
    `- \`/healthz\` is probed by a third process, open loop (sent on schedule whether or not earlier probes came back): ${s.probeHz}/s over a fresh TCP connection each (\`Connection: close\`, what a kubelet probe does) and ${s.probeHz}/s over keep-alive connections, interleaved; probes time out after 10 s. The prober runs at nice ${[...new Set(report.servers.map((x) => x.proberPriority))].join('/')} (−5 when allowed: it barely uses CPU, and on a busy machine its own wake-ups should not be what it measures); \`proberLateP99\` in the JSON is how late it still sent probes. Only probes sent while the cell's measured part ran count; "idle" is ${s.idleMs} ms with no load before the first cell.`,
    `- compute = Server-Timing \`compute\` (the HE work in the executor; for Direct, the same call in process); executor = keyload + deserialize + compute + serialize; latency = client-side send → whole answer. Event-loop delay = the server's own \`monitorEventLoopDelay\` (prom-client in \`/metrics\`, reset by the scrape right before the measured part and read right after), minus its ${report.loopResolutionMs} ms sampling interval.`,
    `- Direct runs the same job (envelope checks, SEAL loads, compute, save) in the benchmark process, one call at a time with 2 ms idle between calls (like a one-client loop; back-to-back calls would make it the one CPU hog on a busy machine): it has no concurrency, no HTTP, no \`/healthz\`.`,
    `- ${s.repeats} run${s.repeats === 1 ? '' : 's'} of every cell, rows in rotating order per repeat; the tables show medians over runs of each statistic (p99s are per run, ≈ the slowest 1–2 requests of ~${s.requests} or ${s.durationSeconds} s). Raw samples of every request and probe are in the JSON. Nothing here is a pass/fail threshold.`,
  ]
}

/** The cost-fairness section: another tenant's search while one tenant floods maximum-cost programs. */
export function costFloodLines(flood: CostFloodRecord): string[] {
  const pair = (a: number | null, b: number | null) => `${ms(a)} / ${ms(b)}`
  return [
    "## Cost fairness: another tenant's search while one tenant floods maximum-cost programs",
    '',
    '| the other tenant’s search | searches | latency p50 / p99 ms | Server-Timing queue p50 / max ms |',
    '|---|---:|---:|---:|',
    `| server otherwise idle | ${flood.idleSearch.requests} | ${pair(flood.idleSearch.p50, flood.idleSearch.p99)} | – |`,
    `| during the flood | ${flood.floodSearch.requests} | ${pair(flood.floodSearch.p50, flood.floodSearch.p99)} | ${pair(flood.floodSearch.queueP50, flood.floodSearch.queueMax)} |`,
    '',
    `Flood: one tenant keeps ${flood.floodLanes} programs in flight on a \`pool\` server with one worker for ${flood.floodSeconds} s — ${flood.program}, ${flood.programCost.toLocaleString('en')} cost units each, with MAX_PROGRAM_COST set to ${flood.maxProgramCost.toLocaleString('en')} so every one is as expensive as the server allows; ${flood.programJob.requests} ran, ${ms(flood.programJob.p50)} ms p50 / ${ms(flood.programJob.max)} ms max in the worker. The search's longest queue wait was ${flood.waitInPrograms === null ? '–' : `${flood.waitInPrograms}×`} the longest program (deficit round-robin by cost: about one program at most). First answer during the flood decrypted correctly: ${flood.verified ? 'yes' : 'NO'}.`,
  ]
}

/** The report as Markdown. */
export function renderServerMarkdown(report: ServerBenchReport): string {
  const parts = [
    '# Server isolation benchmark',
    '',
    `Command: \`${report.command}\`  `,
    `${runFacts(report)}`,
    '',
    '## Headline',
    '',
    ...headlineLines(report),
  ]
  for (const w of report.workloads) {
    parts.push('', `## ${w.title}`, '', mainTable(report, w.workload))
    parts.push(
      '',
      `Facts: ${Object.entries(w.facts)
        .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en') : v}`)
        .join('; ')}.`,
    )
  }
  if (report.costFlood) parts.push('', ...costFloodLines(report.costFlood))
  parts.push('', '## How it was measured', '', ...methodLines(report))
  for (const w of report.workloads) {
    parts.push(
      '',
      `<details><summary>Every cell: ${w.title}</summary>`,
      '',
      detailTable(report, w.workload),
      '',
      '</details>',
    )
  }
  if (report.failures.length > 0) {
    parts.push(
      '',
      '## Failed server runs',
      '',
      ...report.failures.map((f) => `- ${f.row}, run ${f.repeat}: ${f.message}`),
    )
  }
  const starts = report.servers.map((s) => `${s.row} ${formatMillis(s.readyMs)}`)
  parts.push('', `Server start to ready (spawn → \`/readyz\` 200): ${starts.join(', ')}.`)
  return `${parts.join('\n')}\n`
}
