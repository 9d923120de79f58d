import type { MachineInfo } from '../core/machineInfo.ts'
import { markdownTable } from '../core/markdownTable.ts'
import { geometricMean } from '../core/stats.ts'
import { estimateWith, type KernelQuerySample, type KernelUnitCosts } from './fitKernelCosts.ts'
import type { KernelOpTimes } from './measureKernelOps.ts'

/** What `benchmark:calibrate-kernel` writes. */
export interface KernelCalibrationReport {
  command: string
  date: string
  loadAverage: { before: number[]; after: number[] }
  machine: MachineInfo
  unitMs: number
  current: KernelUnitCosts
  ops: KernelOpTimes
  fit: { costs: KernelUnitCosts; scale: number }
  /** The g resolveSearchConfig picked (with the constants in force) per shape and hoisting. */
  picks: { rows: number; dimension: number; hoisted: boolean; babyStep: number }[]
  samples: KernelQuerySample[]
}

const f2 = (value: number) => value.toFixed(2)
const f3 = (value: number) => value.toFixed(3)
const KEYS = ['rotation', 'hoistedRotation', 'decomposition', 'multiply', 'modSwitch'] as const

/** The Markdown of a kernel calibration run. */
export function renderKernelCalibration(report: KernelCalibrationReport): string {
  const { ops, current, fit, unitMs } = report
  const opsTable = markdownTable(
    [
      { heading: 'constant' },
      { heading: 'kernel op, median ms', align: 'right' },
      { heading: '÷ unit (this run)', align: 'right' },
      { heading: 'in force', align: 'right' },
      { heading: '**fitted**', align: 'right' },
    ],
    KEYS.map((key) => [key, f3(ops[key]), f3(ops[key] / ops.unit), String(current[key]), `**${fit.costs[key]}**`]),
  )
  const oldRatio = (s: KernelQuerySample) => s.estimatedMs / s.cpuMs
  const newRatio = (s: KernelQuerySample) => estimateWith(s, unitMs, current, fit.costs) / s.cpuMs
  const configTable = markdownTable(
    [
      { heading: 'config' },
      { heading: 'CPU per query, mean (ms)', align: 'right' },
      { heading: 'server total min / median (ms)', align: 'right' },
      { heading: 'model, in force (ms)', align: 'right' },
      { heading: 'model, fitted (ms)', align: 'right' },
      { heading: 'predicted ÷ measured, in force / fitted', align: 'right' },
      { heading: 'exact', align: 'right' },
    ],
    report.samples.map((s) => [
      s.label,
      f2(s.cpuMs),
      `${f2(s.totalMin)} / ${f2(s.totalMedian)}`,
      f2(s.estimatedMs),
      f2(estimateWith(s, unitMs, current, fit.costs)),
      `${f2(oldRatio(s))} / **${f2(newRatio(s))}**`,
      s.exact ? 'yes' : '**no**',
    ]),
  )
  const pickRows = report.picks.map((pick) => {
    const group = report.samples.filter(
      (s) => s.rows === pick.rows && s.dimension === pick.dimension && s.hoisted === pick.hoisted,
    )
    const best = (score: (s: KernelQuerySample) => number) =>
      [...group].sort((a, b) => score(a) - score(b))[0]?.babyStep ?? 0
    const fastestCpu = best((s) => s.cpuMs)
    const fastestMedian = best((s) => s.totalMedian)
    const fittedPick = best((s) => estimateWith(s, unitMs, current, fit.costs))
    const within = (g: number) => {
      const chosen = group.find((s) => s.babyStep === g)
      const fastest = group.find((s) => s.babyStep === fastestCpu)
      return chosen && fastest ? f2(chosen.cpuMs / fastest.cpuMs) : '–'
    }
    return [
      `V = ${pick.rows}, D = ${pick.dimension}${pick.hoisted ? ', hoisted' : ''}`,
      String(pick.babyStep),
      String(fittedPick),
      String(fastestCpu),
      String(fastestMedian),
      `${within(pick.babyStep)} / ${within(fittedPick)}`,
    ]
  })
  const picksTable = markdownTable(
    [
      { heading: 'shape' },
      { heading: "model's g (in force)", align: 'right' },
      { heading: "model's g among these (fitted)", align: 'right' },
      { heading: 'fastest g by CPU', align: 'right' },
      { heading: 'fastest g by median total', align: 'right' },
      { heading: "CPU of the model's g ÷ fastest (in force / fitted)", align: 'right' },
    ],
    pickRows,
  )
  const spreadOf = (ratio: (s: KernelQuerySample) => number) => {
    const values = report.samples.map(ratio)
    return `geometric mean ${f2(geometricMean(values))}, range ${f2(Math.min(...values))}–${f2(Math.max(...values))}`
  }
  return [
    '# Search cost model: the key-switching kernel against the clock',
    '',
    `Command: \`${report.command}\`  `,
    `Date: ${report.date}; ${report.machine.cpuModel}, ${report.machine.cores} logical cores, Node ${report.machine.node}; load average ${report.loadAverage.before.join(' / ')} at the start, ${report.loadAverage.after.join(' / ')} at the end.`,
    '',
    `The unit is SEAL's NTT-form plaintext multiply at n = 4096 [27, 28, 28] (node-seal, this run: ${f3(ops.unit)} ms median); the model prices a unit at ${unitMs} ms (SEARCH_UNIT_MS). Kernel operations timed in turn with the unit, sample by sample (hoisted rotation alone, its decomposition apart; multiply = one term of a 64-term inner product; mod switch = the kernel's alone). Their ratios to the unit, times one scale fitted by least squares to the whole queries below, each query's CPU counted in this run's units (what the model adds outside the kernel — the query's load, the response's save — kept as it is): **scale ${f3(fit.scale)}**. Predicted ÷ measured below compares the model's ms with the CPU ms as measured (not rescaled by this run's unit).`,
    '',
    opsTable,
    '',
    `## Whole queries (interleaved; CPU = this thread's CPU time per evaluate)`,
    '',
    `Predicted ÷ measured CPU: in force ${spreadOf(oldRatio)}; fitted ${spreadOf(newRatio)}.`,
    '',
    configTable,
    '',
    '## Does the model pick the fastest g?',
    '',
    "The model's g in force is resolveSearchConfig's pick when this run started; the fitted column is the g among the configs timed here that the fitted constants rank cheapest.",
    '',
    picksTable,
    '',
  ].join('\n')
}
