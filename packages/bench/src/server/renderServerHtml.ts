import { escapeHtml, htmlList, htmlPage, htmlTable } from '../core/htmlPage.ts'
import { svgBarChart } from '../core/svgBarChart.ts'
import type { Workload } from '../load/PreparedWorkload.ts'
import { detailTable, headlineLines, methodLines, ms, runFacts } from './renderServerMarkdown.ts'
import type { RunStatKey } from './runStats.ts'
import { cellOf, type ServerBenchReport } from './ServerBenchReport.ts'

/** One colour per concurrency level (cycled). */
const CONCURRENCY_COLORS = ['#3c873a', '#4285f4', '#e66000', '#8e44ad', '#4a4a4a', '#c0392b']

/** A Markdown table of ours (plain cells) as an HTML table. */
function markdownToHtmlTable(markdown: string): string {
  const lines = markdown.split('\n').filter((line) => line.startsWith('|'))
  const cells = (line: string) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) =>
        cell
          .trim()
          .replace(/\\\|/g, '|')
          .replace(/\*\*|`/g, ''),
      )
  const head = cells(lines[0] ?? '')
  const rows = lines.slice(2).map(cells)
  return htmlTable(
    head.map((heading, i) => ({ heading, align: i > 0 ? 'right' : 'left' })),
    rows,
  )
}

function chart(
  report: ServerBenchReport,
  workload: Workload,
  key: RunStatKey,
  title: string,
  axisLabel: string,
  scale: 'log' | 'linear',
  serverOnly: boolean,
): string {
  const rows = report.settings.rows.filter((row) => !serverOnly || row.kind === 'server')
  return svgBarChart({
    title,
    categories: rows.map((row) => row.label.replace(/`/g, '')),
    series: report.settings.concurrency.map((c, i) => ({
      name: `${c} client${c === 1 ? '' : 's'}`,
      color: CONCURRENCY_COLORS[i % CONCURRENCY_COLORS.length] as string,
      values: rows.map((row) => {
        const value = cellOf(report.cells, row.id, workload, c)?.stats[key]
        return value === null || value === undefined ? undefined : value
      }),
    })),
    scale,
    axisLabel,
    format: (value) => (key === 'throughput' ? value.toFixed(value < 10 ? 1 : 0) : `${ms(value)} ms`),
  })
}

/** The report as one self-contained HTML page (inline CSS and SVG, no scripts). */
export function renderServerHtml(report: ServerBenchReport, markdownTables: Record<Workload, string>): string {
  const parts: string[] = [
    '<h1>Server isolation benchmark</h1>',
    `<p class="note">Command: <code>${escapeHtml(report.command)}</code><br>${escapeHtml(runFacts(report))}</p>`,
    '<h2>Headline</h2>',
    htmlList(headlineLines(report)),
  ]
  for (const w of report.workloads) {
    const id = w.workload
    parts.push(
      `<h2>${escapeHtml(w.title)}</h2>`,
      markdownToHtmlTable(markdownTables[id]),
      `<p class="note">${escapeHtml(
        Object.entries(w.facts)
          .map(([k, v]) => `${k} ${v}`)
          .join('; '),
      )}</p>`,
      `<figure>${chart(report, id, 'healthzFreshP99', '/healthz p99 while the HE load runs (fresh connection per probe, log scale)', 'ms (log scale)', 'log', true)}</figure>`,
      `<figure>${chart(report, id, 'latencyP50', 'End-to-end latency p50 (log scale)', 'ms (log scale)', 'log', false)}</figure>`,
      `<figure>${chart(report, id, 'latencyP99', 'End-to-end latency p99 (log scale)', 'ms (log scale)', 'log', false)}</figure>`,
      `<figure>${chart(report, id, 'throughput', 'Throughput (successful requests per second)', 'requests / s', 'linear', false)}</figure>`,
      `<figure>${chart(report, id, 'computeP50', 'HE compute inside the executor (Server-Timing compute, median)', 'ms', 'linear', false)}</figure>`,
      `<figure>${chart(report, id, 'loopDelayP99', 'Server event-loop delay p99 (monitorEventLoopDelay, minus its 10 ms interval; log scale)', 'ms (log scale)', 'log', true)}</figure>`,
      `<details><summary>Every cell</summary>${markdownToHtmlTable(detailTable(report, id))}</details>`,
    )
  }
  parts.push('<h2>How it was measured</h2>', htmlList(methodLines(report)))
  return htmlPage('sealbox server isolation benchmark', parts.join('\n'))
}
