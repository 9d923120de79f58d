import { formatBytes, formatMicros, formatMillis, formatRatio } from '../core/formatNumbers.ts'
import { type MarkdownColumn, markdownTable } from '../core/markdownTable.ts'
import { median } from '../core/stats.ts'
import { cellRatio, type OpTableReport, type OpTableRow, opTableRows } from './OpTableReport.ts'
import {
  engineColumns,
  meanRatio,
  PUBLISHED_RATIOS,
  publishedMeanRatio,
  ratioPairs,
  sanitySummary,
} from './opTableSummary.ts'
import { PUBLISHED_COLUMNS, PUBLISHED_LABELS } from './publishedTimings.ts'
import { searchOpsSection } from './searchOpsSection.ts'

const EXTRA_MARK = '†'

function rowLabel(row: OpTableRow): string {
  return row.spec.origin === 'sealbench' ? row.spec.op : `${row.spec.op} ${EXTRA_MARK}`
}

function cellText(row: OpTableRow, id: OpTableReport['engines'][number]['id'], pick: 'medianUs' | 'minUs'): string {
  const cell = row.cells[id]
  if (cell) return formatMicros(cell[pick])
  if (id === 'native' && row.spec.wasmOnly) return 'n/a'
  const missing = row.missing[id]
  return missing ? (missing.startsWith('n/a') ? 'n/a' : 'failed') : ''
}

/** The operation table in the published layout, plus ratio and published columns (those with medians only). */
export function operationTable(
  report: OpTableReport,
  pick: 'medianUs' | 'minUs',
): { columns: MarkdownColumn[]; rows: string[][] } {
  const engines = engineColumns(report)
  const pairs = pick === 'medianUs' ? ratioPairs(report) : []
  const withPublished = pick === 'medianUs'
  const columns: MarkdownColumn[] = [
    { heading: 'n', align: 'right' },
    { heading: 'log(q)', align: 'right' },
    { heading: 'Group' },
    { heading: 'Operation' },
    ...engines.map((e) => ({ heading: e.label, align: 'right' as const })),
    ...pairs.map((p) => ({ heading: p.heading, align: 'right' as const })),
    ...(withPublished
      ? PUBLISHED_COLUMNS.map((c) => ({ heading: `pub. ${PUBLISHED_LABELS[c]}`, align: 'right' as const }))
      : []),
  ]
  const rows = opTableRows(report).map((row) => [
    String(row.n),
    String(row.logQ),
    row.spec.group,
    rowLabel(row),
    ...engines.map((e) => cellText(row, e.id, pick)),
    ...pairs.map((p) => formatRatio(cellRatio(row, p.a.id, p.b.id))),
    ...(withPublished ? PUBLISHED_COLUMNS.map((c) => formatMicros(row.published?.values[c])) : []),
  ])
  return { columns, rows }
}

function operationTableMarkdown(report: OpTableReport, pick: 'medianUs' | 'minUs' = 'medianUs'): string {
  const { columns, rows } = operationTable(report, pick)
  return markdownTable(columns, rows)
}

/** The headline as columns and rows: geometric-mean ratios per n, ours (medians, minimums) and published. */
export function headlineTable(report: OpTableReport): { columns: MarkdownColumn[]; rows: string[][]; note: string } {
  const rows = opTableRows(report)
  const pairs = ratioPairs(report)
  const columns: MarkdownColumn[] = [
    { heading: 'n', align: 'right' },
    { heading: 'from', align: 'left' },
    ...pairs.map((p) => ({ heading: p.heading, align: 'right' as const })),
    ...PUBLISHED_RATIOS.map((p) => ({ heading: p.heading, align: 'right' as const })),
  ]
  const body = report.plan.ns.flatMap((n) => {
    const published = PUBLISHED_RATIOS.map((p) => formatRatio(publishedMeanRatio(rows, n, p.a, 'native_no_hexl')))
    return (['medianUs', 'minUs'] as const).map((pick, i) => [
      i === 0 ? String(n) : '',
      pick === 'medianUs' ? 'medians' : 'minimums',
      ...pairs.map((p) => formatRatio(meanRatio(rows, n, p.a.id, p.b.id, pick))),
      ...(i === 0 ? published : published.map(() => '')),
    ])
  })
  const note =
    "Geometric mean over the published table's rows at each n that both columns timed (our extra rows and Setup excluded), from the per-cell medians and — less sensitive to other load on the machine — from the per-cell minimums. The `pub.` columns are the same means over node-seal's published figures (browser zeros from coarse timers skipped; Safari/Firefox have no figures above n=8192)."
  return { columns, rows: body, note }
}

/** The headline in Markdown. */
export function headlineMarkdown(report: OpTableReport): string {
  if (ratioPairs(report).length === 0) return '_Ratios need at least two engines._'
  const { columns, rows, note } = headlineTable(report)
  return `${markdownTable(columns, rows)}\n\n${note}`
}

/** Engine rows: status, versions, wall time, load, isolation, timer step, sanity. */
export function engineFactRows(report: OpTableReport): { columns: MarkdownColumn[]; rows: string[][] } {
  const columns: MarkdownColumn[] = [
    { heading: 'Column' },
    { heading: 'Status' },
    { heading: 'Version' },
    { heading: 'Busy time', align: 'right' },
    { heading: 'Load avg at start → end' },
    { heading: 'Isolated' },
    { heading: 'Timer step', align: 'right' },
    { heading: 'Sanity checks' },
  ]
  const rows = report.engines.map((e) => {
    const runtime = e.result?.runtime
    const versions = e.versions
      ? Object.entries(e.versions)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      : ''
    return [
      e.label,
      e.status === 'ok' ? 'ok' : `${e.status}: ${e.reason ?? ''}${e.install ? ` — install: \`${e.install}\`` : ''}`,
      versions,
      e.wallMs === undefined ? '' : formatMillis(e.wallMs),
      e.loadAverageBefore && e.loadAverageAfter
        ? `${e.loadAverageBefore.join(' ')} → ${e.loadAverageAfter.join(' ')}`
        : '',
      runtime?.crossOriginIsolated === undefined ? 'n/a' : runtime.crossOriginIsolated ? 'yes' : 'NO',
      runtime ? `${runtime.timerResolutionUs.toPrecision(2)} µs` : '',
      e.result ? sanitySummary(e) : '',
    ]
  })
  return { columns, rows }
}

function engineFacts(report: OpTableReport): string {
  const { columns, rows } = engineFactRows(report)
  return markdownTable(columns, rows)
}

/** The method, as Markdown bullet points (the HTML report renders the same text). */
export function methodText(report: OpTableReport): string {
  const p = report.plan.policy
  const budgets = p.budgets
    .filter((b) => report.plan.ns.includes(b.n))
    .map((b) => `n=${b.n}: ${formatMillis(b.warmupMs)} / ${formatMillis(b.measureMs)}`)
    .join(', ')
  const schedule =
    report.schedule === 'interleaved'
      ? '- **Interleaved.** All engines run at once but take turns: every engine measures a cell before the next cell starts (the first engine rotates), and only one computes at any moment. Background load on a shared machine therefore hits every column alike; ratios compare measurements taken seconds apart.'
      : '- **Sequential.** One engine ran its whole plan after the other: background load that changes over the run can favour one column.'
  return [
    schedule,
    `- **Same code everywhere.** One TypeScript harness (\`src/harness/\`) runs in Node (a child process) and in each browser (a module Worker in a page served from 127.0.0.1 with COOP/COEP, so \`performance.now()\` is precise); the Native column runs a line-by-line Python port of it against native SEAL 4.1 (PyPI \`seal-python==4.1.2.1\`). Inputs (real encryptions of random messages, fresh copies for in-place ops) are made outside the timed region; every SEAL object is deleted.`,
    `- **Warm-up.** ${formatMillis(p.engineWarmupMs)} of every planned op at n=4096 in rotation before the first cell (WebKit's JavaScriptCore reaches its optimizing tier only after ~100 calls); then per cell one cold call and warm-up samples until ${p.warmupWindow} in a row agree within ${Math.round(p.warmupTolerance * 100)}% (at least ${p.warmupMinCalls} calls) or the warm-up budget is spent.`,
    `- **Samples.** ${p.repeats} samples per cell of ${p.iterations} calls each (like sealbench's 10 iterations); cheap ops get more calls so a sample lasts ≥ ${p.minSampleMs} ms. The table shows the **median** of the samples (µs per call); minimums are below and every sample is in the JSON.`,
    `- **Budgets.** Per-n caps (warm-up / samples) keep a full run within 30 minutes: ${budgets}. A cell over its cap gets fewer calls per sample, then fewer samples (never fewer than ${p.minRepeats}).`,
    `- **Rows.** sealbench's rows and names; rows marked ${EXTRA_MARK} are not in the published table (BGV from sealbench's bgv.cpp, the sandbox's extra ops, and Setup = \`new SEALContext(...)\`, one cold call). Keyswitching and mod-switch rows are skipped at n=1024/2048 (single prime), as sealbench does. KeyGen/Galois is **one** key for one random step (not the default set); EvaluateMulCt excludes relinearization.`,
  ].join('\n')
}

/** `; 1-min load during the run: min … / median … / max …` when samples exist. */
export function loadDuring(report: OpTableReport): string {
  const loads = (report.loadSamples ?? []).map((s) => s.load1)
  if (loads.length === 0) return ''
  return `; 1-min load during the run: min ${Math.min(...loads)} / median ${median(loads)} / max ${Math.max(...loads)} on ${report.machine.cores} CPUs`
}

/** The whole Markdown report. */
export function renderOpTableMarkdown(report: OpTableReport): string {
  const m = report.machine
  const params = report.parameters
  const skipped = report.engines.filter((e) => e.status !== 'ok')
  return [
    '# SEAL operation timings on this machine',
    '',
    `Generated by \`${report.command.replace(/ --$/, '')}\` on ${report.startedAt}; wall time **${formatMillis(report.wallMs)}** (${report.schedule ?? 'sequential'} schedule).`,
    '',
    `**Machine:** ${m.cpuModel}, ${m.cores} logical CPUs, ${formatBytes(m.memoryBytes)} RAM, ${m.os} (${m.arch}). ` +
      `**Load average** (1/5/15 min) before: ${report.loadAverageBefore.join(' ')}, after: ${report.loadAverageAfter.join(' ')}` +
      `${loadDuring(report)}.`,
    '',
    `**Parameters (as SEAL's sealbench):** ${params.coeffModulus}; ${params.plainModulus}; CKKS scale ${params.ckksScale}. ` +
      `**Security level: \`SecLevelType.none\`** — ${params.securityLevel}.`,
    '',
    ...(skipped.length > 0
      ? [
          ...skipped.map(
            (e) => `> **${e.label} ${e.status}:** ${e.reason ?? ''}${e.install ? ` — install: \`${e.install}\`` : ''}`,
          ),
          '',
        ]
      : []),
    '## Engines',
    '',
    engineFacts(report),
    '',
    '## Headline: how much slower than native (and than Node)',
    '',
    headlineMarkdown(report),
    '',
    '## Operation table (median µs per call)',
    '',
    `Columns: this run's engines, their ratios (${ratioPairs(report)
      .map((p) => p.heading)
      .join(
        ', ',
      )}), then the published figures for reference (${report.publishedSource}). ${EXTRA_MARK} = row not in the published table.`,
    '',
    operationTableMarkdown(report),
    '',
    '<details><summary>Minimum µs per call</summary>',
    '',
    operationTableMarkdown(report, 'minUs'),
    '',
    '</details>',
    '',
    ...searchOpsSection(report),
    '## Method',
    '',
    methodText(report),
    '',
    `Raw samples, warm-up traces, sanity checks and engine facts: \`operations.json\`; charts: \`operations.html\`. Columns: ${engineColumns(
      report,
    )
      .map((e) => e.shortName)
      .join(', ')}.`,
    '',
  ].join('\n')
}
