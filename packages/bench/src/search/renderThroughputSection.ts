import { formatMs, formatRatio } from '../core/formatNumbers.ts'
import { markdownTable } from '../core/markdownTable.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import type { ThroughputCell } from './throughputStats.ts'

/** The heading of the section; `--throughput-only` replaces the section under it. */
export const THROUGHPUT_HEADING = '## Throughput through the real server'

const rate = (value: number | null) => (value === null || !Number.isFinite(value) ? '–' : value.toFixed(1))
const load = (values: readonly number[]) => values.join(' / ')
const percent = (fraction: number) => `${Math.round(fraction * 100)}`
const shares = (split: ThroughputCell['threadShares']) =>
  split
    ? `${percent(split.workers)} / ${percent(split.eventLoop)} / ${percent(split.v8Helpers)} / ${percent(split.other)} %`
    : '–'

/** The search benchmark's section on queries per second through real server processes. */
export function renderThroughputSection(report: ThroughputReport): string {
  const { direct, plan } = report
  const columns = [
    'where',
    'clients',
    'queries (errors)',
    'q/s',
    'q/s per worker core',
    'latency p50 / p99 ms',
    'server compute p50 ms',
    'worker CPU per query ms',
    'server CPU per query ms',
    'q/s per CPU core',
    'server CPU: workers / event loop / V8 helpers / other',
    'load average (1 min)',
    'exact',
  ].map((heading, i) => ({ heading, align: i === 0 ? ('left' as const) : ('right' as const) }))
  const rows = [
    [
      'direct: he-core in one thread, no HTTP',
      '1',
      `${direct.total.samples} (0)`,
      rate(direct.qps),
      rate(direct.qps),
      `${formatMs(direct.total.min)} min / ${formatMs(direct.total.median)} median`,
      '',
      formatMs(direct.cpuMs),
      formatMs(direct.processCpuMs ?? direct.cpuMs),
      `**${rate(direct.qpsPerCore)}**`,
      direct.threadShares
        ? `job ${percent(direct.threadShares.eventLoop)} / V8 helpers ${percent(direct.threadShares.v8Helpers)} / other ${percent(direct.threadShares.workers + direct.threadShares.other)} %`
        : '–',
      '',
      '',
    ],
    ...report.cells.map((cell) => [
      `\`pool\`, WORKERS=${cell.workers}, HTTP`,
      String(cell.concurrency),
      `${cell.requests} (${cell.errors})`,
      rate(cell.qps),
      `**${rate(cell.qpsPerWorkerCore)}**`,
      `${formatMs(cell.latencyP50)} / ${formatMs(cell.latencyP99)}`,
      formatMs(cell.computeP50),
      formatMs(cell.workerCpuMs),
      cell.serverCpuMs === null ? '–' : formatMs(cell.serverCpuMs),
      rate(cell.qpsPerCpuCore),
      shares(cell.threadShares),
      String(cell.loadAverage[0]),
      cell.verified ? 'yes' : '**no**',
    ]),
  ]
  const best = report.cells.reduce<ThroughputReport['cells'][number] | undefined>(
    (top, cell) => (top === undefined || cell.qpsPerWorkerCore > top.qpsPerWorkerCore ? cell : top),
    undefined,
  )
  const directAll = direct.processCpuMs ?? direct.cpuMs
  const summary = best
    ? [
        '',
        `**Best served: ${rate(best.qps)} q/s with ${best.concurrency} clients on ${best.workers} worker thread(s), ${rate(best.qpsPerWorkerCore)} q/s per worker core, against ${rate(direct.qpsPerCore)} q/s per core direct (direct ÷ served: ${formatRatio(direct.qpsPerCore / best.qpsPerWorkerCore)}).** ` +
          (best.serverCpuMs === null
            ? ''
            : `There the server spent ${formatMs(best.serverCpuMs)} ms of CPU per query (every thread) against ${formatMs(directAll)} ms direct (every thread too; ${formatRatio(best.serverCpuMs / directAll)}; where it goes: the thread split column). `) +
          "A row whose q/s per worker core is below its q/s per CPU core had workers waiting for a core (the machine's other work) or for work (too few clients).",
      ]
    : []
  const failures = report.failures.map(
    (failure) => `- pool with ${failure.workers} worker(s) failed: ${failure.message}`,
  )
  return [
    THROUGHPUT_HEADING,
    '',
    `Measured by \`${report.command}\` on ${report.date} (${report.cores} logical cores; load average ${load(report.loadAverageBefore)} before, ${load(report.loadAverageAfter)} after). ` +
      `${report.workload.title}: ${Object.entries(report.workload.facts)
        .map(([key, value]) => `${key} ${value}`)
        .join(', ')}.`,
    '',
    `Each row is a real server process (\`apps/server\`, \`EXECUTOR=pool\`, WORKERS worker threads) on loopback, warmed up, then a separate load-generator process keeping the given number of clients in flight through \`SealboxClient\` (HTTP keep-alive), at most ${plan.requests} queries or ${plan.maxSeconds} s per row after 2 × clients unrecorded ones; every first answer is decrypted and checked against the plaintext oracle. ` +
      "q/s per worker core = q/s ÷ min(WORKERS, cores). Worker CPU is the job thread's CPU time (Server-Timing `cpu`); server CPU is the whole server process (HTTP, event loop and workers) from `/metrics` (`process_cpu_seconds_total`) read right before and after the measured part, divided by the answered queries; q/s per CPU core = 1000 ÷ server CPU per query: what one core fully given to the server would serve. The split of the server's CPU between its threads (worker threads: the jobs and their messaging; the event loop: HTTP and the routes; V8's helper threads: concurrent garbage collection and compiling) is read from `/proc/<pid>/task/*/stat` around each row, its warm-up included. " +
      `The direct row runs the same queries through he-core's \`PrivateSearchIndex\` in the benchmark's own thread (${direct.total.samples} queries, half before the servers, half after): its thread's CPU per query compares with the worker's, and its whole process's (V8's helper threads collecting its garbage included, from /proc) with the server's.`,
    '',
    markdownTable(columns, rows),
    ...summary,
    ...(failures.length > 0 ? ['', ...failures] : []),
    '',
  ].join('\n')
}

/**
 * `markdown` with the section under `heading` (up to the next `## ` heading) replaced by
 * `section`, or with `section` appended when there is none.
 */
export function replaceSection(markdown: string, heading: string, section: string): string {
  const start = markdown.indexOf(`${heading}\n`)
  const body = section.endsWith('\n') ? section : `${section}\n`
  if (start === -1) return `${markdown.replace(/\n*$/, '\n\n')}${body}`
  const next = markdown.indexOf('\n## ', start + heading.length)
  return next === -1
    ? `${markdown.slice(0, start)}${body}`
    : `${markdown.slice(0, start)}${body}\n${markdown.slice(next + 1)}`
}
