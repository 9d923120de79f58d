/**
 * `pnpm --filter @sealbox/bench benchmark:calibrate-kernel`: the search cost model's kernel
 * constants (he-core SEARCH_KERNEL_UNIT_COSTS) against the clock. Times the kernel's own
 * operations against the model's unit (SEAL's NTT-form multiply) for their ratios, then
 * whole queries of kernel configs (several g, single and hoisted baby steps, two shapes)
 * interleaved, fits one scale, and reports the fitted constants, each config's predicted ÷
 * measured with the old and the new constants, and whether the g the model picks is the
 * fastest measured. Writes packages/bench/results/calibration/search-kernel.{md,json}.
 */
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import {
  resolveSearchConfig,
  SEARCH_KERNEL_UNIT_COSTS,
  SEARCH_UNIT_MS,
  type SearchConfigInput,
  syntheticSearchDatabase,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { commandLine, runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import { fitKernelCosts, type KernelQuerySample } from './fitKernelCosts.ts'
import { KERNEL_CALIBRATION_CLI } from './kernelCalibrationFlags.ts'
import { measureKernelOps } from './measureKernelOps.ts'
import { prepareSearchCase, runInterleaved, type SearchCase } from './measureSearch.ts'
import { renderKernelCalibration } from './renderKernelCalibration.ts'

const OUT = fileURLToPath(new URL('../../results/calibration/', import.meta.url))
const log = (line: string) => process.stderr.write(`${line}\n`)

/** The shapes and baby steps timed: the bench's main shape and Apple's, g around the model's pick. */
const SHAPES = [
  { rows: 10_000, dimension: 16, babySteps: [2, 4, 8, 16] },
  { rows: 4096, dimension: 128, babySteps: [8, 10, 12, 13, 16] },
] as const

runProgram('benchmark:calibrate-kernel', KERNEL_CALIBRATION_CLI, async (flags, argv) => {
  const loadBefore = loadAverage()
  log('[kernel] timing the kernel operations against the unit')
  const ops = await measureKernelOps(flags['op-samples'])
  const samples: KernelQuerySample[] = []
  const picks: { rows: number; dimension: number; hoisted: boolean; babyStep: number }[] = []
  for (const shape of SHAPES) {
    const database = syntheticSearchDatabase({ rows: shape.rows, dimension: shape.dimension, seed: 1 })
    const cases: { item: SearchCase; hoisted: boolean; babyStep: number }[] = []
    try {
      for (const hoisted of [false, true]) {
        const picked = resolveSearchConfig({ rows: shape.rows, dimension: shape.dimension, hoistBabySteps: hoisted })
        picks.push({ rows: shape.rows, dimension: shape.dimension, hoisted, babyStep: picked.babyStep })
        const steps = [...new Set([...shape.babySteps, picked.babyStep])].sort((a, b) => a - b)
        for (const g of steps) {
          const input: SearchConfigInput = {
            rows: shape.rows,
            dimension: shape.dimension,
            babySteps: 'server',
            babyStep: g,
            hoistBabySteps: hoisted,
          }
          const label = `V=${shape.rows} D=${shape.dimension} g=${g}${hoisted ? ' hoisted' : ''}`
          log(`[kernel] preparing ${label}`)
          cases.push({ item: await prepareSearchCase(label, input, database), hoisted, babyStep: g })
        }
      }
      const measured = await runInterleaved(
        cases.map((c) => c.item),
        { warmup: flags.warmup, samples: flags.samples },
      )
      for (const [i, m] of measured.entries()) {
        const { hoisted, babyStep } = cases[i] as (typeof cases)[number]
        if (m.kernel !== 'keySwitch' || m.config.polyModulusDegree !== 4096 || m.config.coeffModulusBits.length !== 3) {
          throw new BenchError(
            'INTERNAL',
            `${m.label} did not run in the key-switching kernel at n = 4096 [27, 28, 28]`,
          )
        }
        samples.push({
          label: m.label,
          rows: shape.rows,
          dimension: shape.dimension,
          babyStep,
          hoisted: hoisted && m.config.hoistBabySteps,
          operations: m.config.operations,
          estimatedMs: m.config.estimatedServerMs,
          cpuMs: m.cpuMean,
          totalMin: m.total.min,
          totalMedian: m.total.median,
          exact: m.exact,
        })
      }
    } finally {
      for (const c of cases) c.item[Symbol.dispose]()
    }
  }
  const fit = fitKernelCosts(samples, ops, SEARCH_UNIT_MS, SEARCH_KERNEL_UNIT_COSTS)
  const report = {
    command: commandLine('pnpm --filter @sealbox/bench benchmark:calibrate-kernel', argv),
    date: new Date().toISOString(),
    loadAverage: { before: loadBefore, after: loadAverage() },
    machine: machineInfo(),
    settings: flags,
    unitMs: SEARCH_UNIT_MS,
    current: { ...SEARCH_KERNEL_UNIT_COSTS },
    ops,
    fit,
    picks,
    samples,
  }
  const markdown = await writeStampedReport({
    markdownPath: join(OUT, 'search-kernel.md'),
    jsonPath: join(OUT, 'search-kernel.json'),
    markdown: renderKernelCalibration(report),
    json: report,
  })
  process.stdout.write(markdown)
})
