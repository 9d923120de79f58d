import { formatBytes, formatMicros, formatMillis, formatRatio } from '../core/formatNumbers.ts'
import { escapeHtml, htmlList, htmlPage, htmlTable, inlineMarkdown } from '../core/htmlPage.ts'
import { svgBarChart } from '../core/svgBarChart.ts'
import { cellRatio, type OpTableReport, type OpTableRow, opTableRows } from './OpTableReport.ts'
import { engineColumns, meanRatio, ratioPairs } from './opTableSummary.ts'
import { PUBLISHED_COLUMNS, PUBLISHED_LABELS } from './publishedTimings.ts'
import { engineFactRows, headlineTable, loadDuring, methodText } from './renderOpTableMarkdown.ts'

function rowName(row: OpTableRow): string {
  return `${row.spec.group} ${row.spec.op}${row.spec.origin === 'sealbench' ? '' : ' †'}`
}

function timingChart(report: OpTableReport, rows: OpTableRow[], n: number): string {
  const timed = rows.filter((row) => row.n === n && row.spec.group !== 'Setup')
  return svgBarChart({
    title: `n=${n}: median µs per call (log scale)`,
    categories: timed.map(rowName),
    series: engineColumns(report).map((e) => ({
      name: e.label,
      color: e.color,
      values: timed.map((row) => row.cells[e.id]?.medianUs),
    })),
    scale: 'log',
    axisLabel: 'µs per call (log scale)',
    format: formatMicros,
  })
}

function ratioChart(report: OpTableReport, rows: OpTableRow[], n: number): string {
  const pairs = ratioPairs(report).filter((p) => p.b.id === 'native')
  if (pairs.length === 0) return ''
  const timed = rows.filter((row) => row.n === n && row.spec.group !== 'Setup')
  return svgBarChart({
    title: `n=${n}: WASM time / native time, per operation (log scale)`,
    categories: timed.map(rowName),
    series: pairs.map((p) => ({
      name: p.heading,
      color: p.a.color,
      values: timed.map((row) => cellRatio(row, p.a.id, 'native')),
    })),
    scale: 'log',
    axisLabel: 'ratio to native SEAL (log scale; 1× = as fast as native)',
    format: formatRatio,
    reference: { value: 1, label: '1× native' },
  })
}

function headlineChart(report: OpTableReport, rows: OpTableRow[]): string {
  const pairs = ratioPairs(report).filter((p) => p.b.id === 'native')
  if (pairs.length === 0) return ''
  return svgBarChart({
    title: 'WASM / native: geometric mean over the published rows, per n (medians, log scale)',
    categories: report.plan.ns.map((n) => `n=${n}`),
    series: pairs.map((p) => ({
      name: p.heading,
      color: p.a.color,
      values: report.plan.ns.map((n) => meanRatio(rows, n, p.a.id, p.b.id)),
    })),
    scale: 'log',
    axisLabel: 'ratio (log scale)',
    format: formatRatio,
    reference: { value: 1, label: '1× native' },
  })
}

function contextChart(report: OpTableReport, rows: OpTableRow[]): string {
  const setup = rows.filter((row) => row.spec.group === 'Setup')
  if (setup.length === 0) return ''
  return svgBarChart({
    title: 'SEALContext construction (one cold call, log scale)',
    categories: setup.map((row) => `n=${row.n} ${row.spec.op}`),
    series: engineColumns(report).map((e) => ({
      name: e.label,
      color: e.color,
      values: setup.map((row) => row.cells[e.id]?.medianUs),
    })),
    scale: 'log',
    axisLabel: 'µs (log scale)',
    format: formatMicros,
  })
}

function fullTable(report: OpTableReport, rows: OpTableRow[], pick: 'medianUs' | 'minUs'): string {
  const engines = engineColumns(report)
  const pairs = pick === 'medianUs' ? ratioPairs(report) : []
  const published = pick === 'medianUs' ? PUBLISHED_COLUMNS : []
  const columns = [
    { heading: 'n', numeric: true },
    { heading: 'log(q)', numeric: true },
    { heading: 'Group' },
    { heading: 'Operation' },
    ...engines.map((e) => ({ heading: e.label, numeric: true })),
    ...pairs.map((p) => ({ heading: p.heading, numeric: true })),
    ...published.map((c) => ({ heading: `pub. ${PUBLISHED_LABELS[c]}`, numeric: true })),
  ]
  return htmlTable(
    columns,
    rows.map((row) => [
      String(row.n),
      String(row.logQ),
      row.spec.group,
      `${row.spec.op}${row.spec.origin === 'sealbench' ? '' : ' †'}`,
      ...engines.map((e) => {
        const cell = row.cells[e.id]
        return cell ? formatMicros(cell[pick]) : row.missing[e.id] ? 'failed' : ''
      }),
      ...pairs.map((p) => formatRatio(cellRatio(row, p.a.id, p.b.id))),
      ...published.map((c) => formatMicros(row.published?.values[c])),
    ]),
  )
}

/** The self-contained HTML report: facts, charts (inline SVG) and the full tables. */
export function renderOpTableHtml(report: OpTableReport): string {
  const rows = opTableRows(report)
  const m = report.machine
  const facts = engineFactRows(report)
  const headline = headlineTable(report)
  const perN = report.plan.ns
    .map(
      (n) => `<details${n === 4096 || n === 8192 ? ' open' : ''}><summary>n=${n}</summary>
<figure>${timingChart(report, rows, n)}</figure>
<figure>${ratioChart(report, rows, n)}</figure>
</details>`,
    )
    .join('\n')
  const body = `
<h1>SEAL operation timings on this machine</h1>
<p>Generated by <code>${escapeHtml(report.command.replace(/ --$/, ''))}</code> on ${escapeHtml(report.startedAt)}; wall time <strong>${escapeHtml(formatMillis(report.wallMs))}</strong> (${escapeHtml(report.schedule ?? 'sequential')} schedule).</p>
<p><strong>Machine:</strong> ${escapeHtml(`${m.cpuModel}, ${m.cores} logical CPUs, ${formatBytes(m.memoryBytes)} RAM, ${m.os} (${m.arch})`)}.
<strong>Load average</strong> before ${escapeHtml(report.loadAverageBefore.join(' '))}, after ${escapeHtml(report.loadAverageAfter.join(' '))}${escapeHtml(loadDuring(report))}.</p>
<p><strong>Parameters (as sealbench):</strong> ${inlineMarkdown(`${report.parameters.coeffModulus}; ${report.parameters.plainModulus}; CKKS scale ${report.parameters.ckksScale}.`)}
<strong class="bad">Security level SecLevelType.none</strong> — ${escapeHtml(report.parameters.securityLevel)}.</p>
<h2>Engines</h2>
${htmlTable(
  facts.columns.map((c) => ({ heading: c.heading, numeric: c.align === 'right' })),
  facts.rows.map((row) => row.map((cell) => cell.replace(/`/g, ''))),
)}
<h2>Headline</h2>
${htmlTable(
  headline.columns.map((c) => ({ heading: c.heading, numeric: c.align === 'right' })),
  headline.rows,
)}
<p class="note">${inlineMarkdown(headline.note)}</p>
<figure>${headlineChart(report, rows)}</figure>
<h2>Per n</h2>
${perN}
<h2>Context construction</h2>
<figure>${contextChart(report, rows)}</figure>
<h2>Tables</h2>
<details><summary>Median µs per call, ratios, published figures</summary>${fullTable(report, rows, 'medianUs')}
<p class="note">Published: ${escapeHtml(report.publishedSource)}. † = not in the published table.</p></details>
<details><summary>Minimum µs per call</summary>${fullTable(report, rows, 'minUs')}</details>
<h2>Method</h2>
${htmlList(methodText(report).split('\n'), '\n')}
`
  return htmlPage('SEAL operation timings', body)
}
