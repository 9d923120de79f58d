import { loadSeal } from '@sealbox/he-core'
import { syntheticSearchDatabase } from '@sealbox/he-core/search'
import { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { calibrateSealOps } from './calibrateSealOps.ts'
import { measureBatch } from './measureBatch.ts'
import { type LoadSplit, measureLoadSplit } from './measureLoadSplit.ts'
import { prepareNativeTwin } from './measureNativeSearch.ts'
import { measureRotationCosts, type RotationCosts } from './measureRotations.ts'
import {
  measureSearch,
  prepareSearchCase,
  runInterleaved,
  type SampleCounts,
  type SearchCase,
  type SearchMeasurement,
} from './measureSearch.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import {
  APPLE_DEFAULT_LABEL,
  APPLE_DIMENSION,
  APPLE_ROWS,
  type SearchBenchGroup,
  type SearchBenchPlan,
} from './planSearchBench.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'
import { SealCallClock } from './sealCallClock.ts'
import { searchTargets } from './searchTargets.ts'
import { measureThreaded, type ThreadedMeasurement } from './threadedSearch.ts'

/** How much of the plan to measure, and how. */
export interface SearchBenchOptions {
  rows: number
  dimension: number
  counts: SampleCounts
  /** Rows of the large run; 0 skips it. */
  largeRows: number
  headlineOnly: boolean
  withNative: boolean
  withThreads: boolean
  /** The throughput rows through real servers; undefined skips them. */
  measureThroughput: (() => Promise<ThroughputReport>) | undefined
  log: (line: string) => void
}

/** What one run measured: the report without the facts of where and when it ran. */
export type SearchBenchResults = Omit<SearchBenchReport, 'command' | 'date' | 'machine'>

/**
 * Measures every config of `plan` round-robin (native twins beside their WASM configs, so
 * machine noise hits both alike), then the load split, the large run, the worker threads, the
 * batch and the throughput rows, with single SEAL operations calibrated at the start and the end.
 */
export async function measureSearchBench(
  plan: SearchBenchPlan,
  options: SearchBenchOptions,
): Promise<SearchBenchResults> {
  const { rows, dimension, counts, log } = options
  const { defaults, paddedDimension } = plan
  const seal = await loadSeal()
  const clock = new SealCallClock(seal)
  const database = syntheticSearchDatabase({ rows, dimension, seed: 1 })
  log('[search] calibrating single SEAL operations')
  const calibration = [await calibrateSealOps('bgv', 100), await calibrateSealOps('bfv', 100)]
  const appleDatabase = plan.items.some((item) => item.apple)
    ? syntheticSearchDatabase({ rows: APPLE_ROWS, dimension: APPLE_DIMENSION, seed: 4 })
    : undefined
  const harness = options.withNative ? await NativeSearchHarness.start() : undefined
  const cases: SearchCase[] = []
  const groups: SearchBenchGroup[] = []
  let results: { group: SearchBenchGroup; measurement: SearchMeasurement }[] = []
  let loadSplit: LoadSplit[] = []
  let rotations: RotationCosts | undefined
  try {
    for (const item of plan.items) {
      log(`[search] preparing ${item.label}`)
      const wasm = await prepareSearchCase(
        item.label,
        item.input,
        item.apple ? (appleDatabase ?? database) : database,
        {
          ...(item.kernel ? { kernel: item.kernel } : {}),
          ...(item.seeded === false ? { seeded: false } : {}),
        },
      )
      cases.push(wasm)
      groups.push(item.group)
      if (item.native && harness) {
        cases.push(await prepareNativeTwin(wasm, harness))
        groups.push(item.group)
      }
    }
    log(`[search] sampling ${cases.length} configs round-robin, ${counts.samples} rounds`)
    const measured = await runInterleaved(cases, counts, {
      clock,
      clocked: cases.slice(0, 1),
      onRound: (round) => {
        if ((round + 1) % 10 === 0) log(`         round ${round + 1}/${counts.samples}`)
      },
    })
    results = measured.map((measurement, i) => ({ group: groups[i] as SearchBenchGroup, measurement }))
    log('[search] single rotations: the key-switching kernel, SEAL in WebAssembly, native')
    const nativeRotations = cases.find((item) => item.rotations)
    rotations = await measureRotationCosts(
      Math.max(20, counts.samples),
      nativeRotations?.rotations?.bind(nativeRotations),
    )
    log('[search] splitting the load phase')
    loadSplit = [
      await measureLoadSplit(defaults, 'zstd', counts.samples),
      await measureLoadSplit(defaults, 'none', counts.samples),
    ]
  } finally {
    for (const item of cases) item[Symbol.dispose]()
    await harness?.[Symbol.asyncDispose]()
  }
  const pick = (group: SearchBenchGroup) => results.filter((r) => r.group === group).map((r) => r.measurement)
  const headlineRows = pick('headline')
  const headline = headlineRows[0] as SearchMeasurement
  log(`         default: total ${headline.total.min.toFixed(2)} ms min, ${headline.total.median.toFixed(2)} median`)
  const tradeOff = pick('tradeOff')
  // The NTT-form rows of the forms table are the g = D' client-side WASM rows of the trade-off table.
  const forms = (['bgv', 'bfv'] as const).flatMap((scheme) => [
    ...tradeOff.filter(
      (m) =>
        m.engine === 'wasm' &&
        m.config.scheme === scheme &&
        m.config.babySteps === 'client' &&
        m.config.babyStep === paddedDimension,
    ),
    ...pick('forms').filter((m) => m.config.scheme === scheme),
  ])
  const large = options.largeRows > 0 ? await measureLarge(options, clock) : undefined
  const threads = options.withThreads ? await measureThreads(plan, options) : []
  if (!options.headlineOnly) log('[search] batch of 8 users')
  const batch = options.headlineOnly
    ? undefined
    : await measureBatch(defaults, database, 8, Math.max(3, counts.samples >> 3))
  const throughput = await options.measureThroughput?.()
  const apple = pick('apple')
  const appleCandidates = pick('appleCandidates')
  const candidates = pick('candidates')
  const targets = searchTargets([
    {
      shape: `V = ${APPLE_ROWS}, D = ${APPLE_DIMENSION} (Apple's shape)`,
      wasmDefault: apple.find((m) => m.label === APPLE_DEFAULT_LABEL),
      rows: [...apple, ...appleCandidates],
    },
    {
      shape: `V = ${rows.toLocaleString('en')}, D = ${dimension}`,
      wasmDefault: headline,
      rows: [...headlineRows, ...tradeOff, ...candidates],
    },
  ])
  return {
    samples: counts,
    native: harness ? { ...harness.versions, seal: '4.1.2 (seal-python wheel, built without zstd/zlib)' } : undefined,
    headline,
    headlineRows,
    loadSplit,
    apple,
    candidates,
    appleCandidates,
    targets,
    ...(rotations ? { rotations } : {}),
    schemes: [headline, ...pick('schemes')],
    tradeOff,
    forms,
    large,
    threads,
    batch,
    calibration: [...calibration, await calibrateSealOps('bgv', 100), await calibrateSealOps('bfv', 100)],
    ...(throughput ? { throughput } : {}),
  }
}

async function measureLarge(options: SearchBenchOptions, clock: SealCallClock): Promise<SearchMeasurement> {
  const { largeRows, dimension, counts, log } = options
  log(`[search] V=${largeRows}`)
  const big = syntheticSearchDatabase({ rows: largeRows, dimension, seed: 2 })
  const large = await measureSearch(
    `V=${largeRows}`,
    { rows: largeRows, dimension },
    big,
    { warmup: 2, samples: Math.max(5, counts.samples >> 2) },
    clock,
  )
  log(`         compute ${large.compute.median.toFixed(1)} ms median; exact ${large.exact}`)
  return large
}

async function measureThreads(plan: SearchBenchPlan, options: SearchBenchOptions): Promise<ThreadedMeasurement[]> {
  const { rows, largeRows, dimension, counts, log } = options
  const threads: ThreadedMeasurement[] = []
  for (const v of largeRows > 0 ? [rows, largeRows] : [rows]) {
    for (const count of [1, 2]) {
      log(`[search] V=${v} on ${count} worker thread(s)`)
      const result = await measureThreaded(plan.defaults, { rows: v, dimension, seed: 3 }, count, counts)
      log(`         latency ${result.latency.median.toFixed(2)} ms median; exact ${result.exact}`)
      threads.push(result)
    }
  }
  return threads
}
