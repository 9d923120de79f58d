import { formatMs } from '../core/formatNumbers.ts'
import type { MachineInfo } from '../core/machineInfo.ts'
import { markdownTable } from '../core/markdownTable.ts'
import type { SourceRevision } from '../core/sourceRevision.ts'
import { median } from '../core/stats.ts'

/** One revision's figures in one round (ms). */
export interface RevisionRoundSide {
  totalMin: number
  totalMedian: number
  computeMedian: number
  cpuMean: number
  exact: boolean
  config: { babyStep: number; hoistBabySteps: boolean; configId: string }
}

/** A shape's rounds, each a before/after pair run back to back, and the 1-minute load after it. */
export interface RevisionShapeResult {
  rows: number
  dimension: number
  rounds: { before: RevisionRoundSide; after: RevisionRoundSide; load: number }[]
}

/** What `benchmark:revisions` writes. */
export interface RevisionReport {
  command: string
  date: string
  machine: MachineInfo
  loadAverage: { before: number[]; after: number[] }
  revisions: { before: SourceRevision; after: SourceRevision }
  samples: number
  warmup: number
  shapes: RevisionShapeResult[]
}

const ratio = (value: number) => `${value.toFixed(3)}×`
const revisionText = (revision: SourceRevision) =>
  `\`${revision.commit}\`${revision.dirty ? ' (with uncommitted changes)' : ''}`

/** The paired ratios of a shape: after ÷ before per round, for a figure of the round. */
function pairedRatio(shape: RevisionShapeResult, figure: (side: RevisionRoundSide) => number): number {
  return median(shape.rounds.map((round) => figure(round.after) / figure(round.before)))
}

/** The Markdown of a before/after run. */
export function renderRevisionReport(report: RevisionReport): string {
  const configText = (side: RevisionRoundSide) =>
    `g=${side.config.babyStep}${side.config.hoistBabySteps ? ' hoisted' : ''}`
  const rows = report.shapes.map((shape) => {
    const sides = (pick: 'before' | 'after') => shape.rounds.map((round) => round[pick])
    const before = sides('before')
    const after = sides('after')
    const med = (list: RevisionRoundSide[], figure: (side: RevisionRoundSide) => number) => median(list.map(figure))
    const exact = [...before, ...after].every((side) => side.exact)
    return [
      `V = ${shape.rows.toLocaleString('en-US')}, D = ${shape.dimension}`,
      `${configText(before[0] as RevisionRoundSide)} → ${configText(after[0] as RevisionRoundSide)}`,
      `${formatMs(med(before, (s) => s.totalMin))} / ${formatMs(med(before, (s) => s.totalMedian))}`,
      `${formatMs(med(after, (s) => s.totalMin))} / ${formatMs(med(after, (s) => s.totalMedian))}`,
      `**${ratio(pairedRatio(shape, (s) => s.totalMedian))}** / ${ratio(pairedRatio(shape, (s) => s.totalMin))}`,
      `${formatMs(med(before, (s) => s.cpuMean))} → ${formatMs(med(after, (s) => s.cpuMean))} (${ratio(pairedRatio(shape, (s) => s.cpuMean))})`,
      `${Math.min(...shape.rounds.map((r) => r.load))}–${Math.max(...shape.rounds.map((r) => r.load))}`,
      exact ? 'yes' : '**no**',
    ]
  })
  const table = markdownTable(
    [
      { heading: 'shape' },
      { heading: 'default config (before → after)' },
      { heading: 'before: server total min / median (ms)', align: 'right' },
      { heading: 'after: server total min / median (ms)', align: 'right' },
      { heading: '**after ÷ before** median / min (paired)', align: 'right' },
      { heading: 'CPU per query, mean (ms)', align: 'right' },
      { heading: 'load (1 min) per round', align: 'right' },
      { heading: 'exact', align: 'right' },
    ],
    rows,
  )
  const rounds = report.shapes[0]?.rounds.length ?? 0
  return [
    '# Search before and after a change: the default config at several shapes',
    '',
    `Command: \`${report.command}\`  `,
    `Date: ${report.date}; ${report.machine.cpuModel}, ${report.machine.cores} logical cores, Node ${report.machine.node}, ${report.machine.os}; load average ${report.loadAverage.before.join(' / ')} at the start, ${report.loadAverage.after.join(' / ')} at the end.  `,
    `Before: ${revisionText(report.revisions.before)}; after: ${revisionText(report.revisions.after)}.`,
    '',
    `Each shape's default config (resolveSearchConfig({ rows, dimension })) is processed and timed in a fresh child process per revision and round, importing that checkout's own he-core sources; ${rounds} rounds, the two revisions back to back in each, which goes first alternating. A child checks every query vector against the plaintext oracle, then times ${report.warmup} warm-up and ${report.samples} timed queries (server total = decode + load + compute + save of one evaluate, wall clock; CPU = this thread's CPU time per evaluate). Minimum and median columns are medians over rounds of each child's figure; the ratio is after ÷ before per round (paired, so load drift hits both sides of a pair), median over rounds. Below 1: the later revision is faster.`,
    '',
    table,
    '',
  ].join('\n')
}
