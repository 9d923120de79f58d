import { median } from '../harness/stats.ts'
import type { MachineInfo } from '../report/machineInfo.ts'
import { markdownTable } from '../report/markdownTable.ts'
import { EVALUATE_PHASES, type EvaluateSample } from './measureEvaluateBody.ts'

/** One case of one run: its facts and raw samples. */
export interface EvaluateBodyCaseRecord {
  name: string
  degree: number
  inputCount: number
  /** Bytes of the input envelopes themselves (before any transport encoding). */
  inputEnvelopeBytes: number
  samples: EvaluateSample[]
}

/** One run of the benchmark (one column of the report, e.g. `before`). */
export interface EvaluateBodyRun {
  label: string
  date: string
  /** The commit the server ran (with `+dirty` for uncommitted changes). */
  commit: string
  loadAverage: [number, number, number]
  machine: MachineInfo
  settings: { requests: number; warmup: number }
  cases: EvaluateBodyCaseRecord[]
}

/** The JSON file: every run kept by label, so a later run can be compared with an earlier one. */
export interface EvaluateBodyReport {
  runs: Record<string, EvaluateBodyRun>
}

const ms = (value: number) => value.toFixed(2)
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`

function medians(record: EvaluateBodyCaseRecord) {
  const of = (pick: (s: EvaluateSample) => number) => median(record.samples.map(pick))
  return {
    phases: Object.fromEntries(EVALUATE_PHASES.map((phase) => [phase, of((s) => s.phases[phase])])) as Record<
      (typeof EVALUATE_PHASES)[number],
      number
    >,
    loopMs: of((s) => s.loopMs),
    bytesUp: of((s) => s.bytesUp),
    bytesDown: of((s) => s.bytesDown),
  }
}

function runTable(run: EvaluateBodyRun): string {
  return markdownTable(
    [
      { heading: 'case' },
      { heading: 'bytes up', align: 'right' },
      { heading: 'bytes down', align: 'right' },
      ...EVALUATE_PHASES.map((phase) => ({ heading: `${phase} ms`, align: 'right' as const })),
      { heading: 'loop ms', align: 'right' },
    ],
    run.cases.map((record) => {
      const m = medians(record)
      return [
        record.name,
        kb(m.bytesUp),
        kb(m.bytesDown),
        ...EVALUATE_PHASES.map((phase) => ms(m.phases[phase])),
        ms(m.loopMs),
      ]
    }),
  )
}

function comparisonTable(before: EvaluateBodyRun, after: EvaluateBodyRun): string {
  const arrow = (a: string, b: string) => `${a} → ${b}`
  const rows = before.cases.flatMap((record) => {
    const other = after.cases.find((c) => c.name === record.name)
    if (!other) return []
    const [a, b] = [medians(record), medians(other)]
    return [
      [
        record.name,
        arrow(ms(a.phases.deserialize), ms(b.phases.deserialize)),
        arrow(ms(a.loopMs), ms(b.loopMs)),
        arrow(kb(a.bytesUp), kb(b.bytesUp)),
        arrow(kb(a.bytesDown), kb(b.bytesDown)),
        arrow(ms(a.phases.total), ms(b.phases.total)),
      ],
    ]
  })
  return markdownTable(
    [
      { heading: 'case' },
      { heading: 'deserialize ms', align: 'right' },
      { heading: 'loop ms (decode + encode)', align: 'right' },
      { heading: 'bytes up', align: 'right' },
      { heading: 'bytes down', align: 'right' },
      { heading: 'total ms', align: 'right' },
    ],
    rows,
  )
}

/** The Markdown report: a before → after table when both runs exist, then every run in full. */
export function renderEvaluateBodyMarkdown(report: EvaluateBodyReport, command: string): string {
  const runs = Object.values(report.runs)
  const parts = [
    '# Evaluate request body: bytes on the wire and event-loop time',
    '',
    `\`${command}\`. A real server (pool executor, 2 workers) answers \`POST /api/v1/evaluate\` through \`SealboxClient.evaluate\`, one request at a time, so each request's phases are its own. Program: the k inputs summed (k − 1 adds), × x0, relinearize, rotateRows(1); BFV, t = Batching(n, 20), zstd input envelopes. Medians over the measured requests. **loop** = \`decode\` + \`encode\`: the route's own synchronous work on the event loop (body parsing, validation and analysis, envelope decoding in, response body out) — time during which the server answers no other request. The worker's \`deserialize\` (context lease, envelope checks, zstd inflate, SEAL load) runs the same code on the same envelopes in every column, so a difference there is the shared machine's load (compare \`compute\`), not the body format.`,
  ]
  const before = report.runs.before
  for (const run of runs) {
    if (!before || run.label === 'before') continue
    parts.push('', `## before → ${run.label}`, '', comparisonTable(before, run))
  }
  for (const run of runs) {
    parts.push(
      '',
      `## ${run.label}`,
      '',
      `${run.date}, commit ${run.commit}; ${run.settings.requests} requests per case after ${run.settings.warmup} warm-up; load average ${run.loadAverage.join(' / ')}; ${run.machine.cpuModel}, ${run.machine.cores} cores, Node ${run.machine.node}.`,
      '',
      runTable(run),
    )
  }
  return `${parts.join('\n')}\n`
}
