/**
 * `npm run benchmark:search` (root) → `pnpm --filter @sealbox/bench benchmark:search` →
 * this file: times the private search of @sealbox/he-core on this machine and writes
 * packages/bench/results/search/search-benchmark.{md,json}. `--help` lists the flags.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { cpus, loadavg, type as osType, release } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { loadSeal } from '@sealbox/he-core'
import { type SearchConfigInput, type SearchKernelChoice, syntheticSearchDatabase } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { calibrateSealOps } from './calibrateSealOps.ts'
import { measureBatch } from './measureBatch.ts'
import { type LoadSplit, measureLoadSplit } from './measureLoadSplit.ts'
import { prepareNativeTwin } from './measureNativeSearch.ts'
import {
  measureSearch,
  prepareSearchCase,
  runInterleaved,
  type SampleCounts,
  type SearchCase,
  type SearchMeasurement,
} from './measureSearch.ts'
import { measureServerThroughput, type ThroughputPlan, type ThroughputReport } from './measureServerThroughput.ts'
import { renderSearchReport, type SearchBenchReport } from './renderSearchReport.ts'
import { renderThroughputSection, replaceSection, THROUGHPUT_HEADING } from './renderThroughputSection.ts'
import { SealCallClock } from './sealCallClock.ts'
import { SEARCH_BENCH_CLI } from './searchBenchFlags.ts'
import { measureThreaded, type ThreadedMeasurement } from './threadedSearch.ts'

/** The shape of Apple's published PNNS example (swift-homomorphic-encryption): V = 4096 rows, D = 128, cosine. */
const APPLE_ROWS = 4096
const APPLE_DIMENSION = 128

const log = (line: string) => process.stderr.write(`${line}\n`)

/** Pool servers with 1 and 2 workers, 4 and 16 clients; `--quick` keeps each row to a few seconds. */
function throughputPlan(quick: boolean): ThroughputPlan {
  return quick
    ? { workers: [1, 2], concurrency: [4, 16], requests: 24, maxSeconds: 4, directSamples: 10 }
    : { workers: [1, 2], concurrency: [4, 16], requests: 240, maxSeconds: 15, directSamples: 60 }
}

/**
 * `--throughput-only`: the throughput section of the report in `outDir` is replaced (the
 * JSON's `throughput` too); every other section stays as its own run wrote it.
 */
async function writeThroughputOnly(outDir: string, throughput: ThroughputReport): Promise<string> {
  const read = (name: string) => readFile(join(outDir, name), 'utf8').catch(() => undefined)
  const [markdown, json] = await Promise.all([read('search-benchmark.md'), read('search-benchmark.json')])
  const section = renderThroughputSection(throughput)
  const merged = replaceSection(markdown ?? '# Private search benchmark\n', THROUGHPUT_HEADING, section)
  const report = { ...(json ? (JSON.parse(json) as object) : {}), throughput }
  await mkdir(outDir, { recursive: true })
  await writeFile(join(outDir, 'search-benchmark.md'), merged)
  await writeFile(join(outDir, 'search-benchmark.json'), `${JSON.stringify(report, null, 1)}\n`)
  return section
}

async function main(argv: string[]): Promise<void> {
  const values = SEARCH_BENCH_CLI.parse(argv)
  if (values === 'help') {
    process.stdout.write(`${SEARCH_BENCH_CLI.help()}\n`)
    return
  }
  const counts: SampleCounts = {
    warmup: values.warmup,
    samples: values.samples ?? (values.quick ? 10 : 40),
  }
  const { rows, dimension } = values
  const headlineOnly = values.headline === true
  const largeRows = values.quick || headlineOnly ? 0 : values.large
  const here = dirname(fileURLToPath(import.meta.url))
  // npm/pnpm run the script in the package directory; a relative --out means the caller's directory.
  const outDir = values.out
    ? resolve(process.env.INIT_CWD ?? process.cwd(), values.out)
    : join(here, '..', '..', 'results', 'search')
  const command = ['npm run benchmark:search', ...(argv.length ? ['--', ...argv.filter((a) => a !== '--')] : [])].join(
    ' ',
  )
  const measureThroughput = () =>
    measureServerThroughput({ plan: throughputPlan(values.quick === true), command, cores: cpus().length, log })
  if (values['throughput-only']) {
    const section = await writeThroughputOnly(outDir, await measureThroughput())
    process.stdout.write(`\n${section}`)
    log(`wrote the throughput section of ${join(outDir, 'search-benchmark.md')} and .json`)
    return
  }

  const seal = await loadSeal()
  const clock = new SealCallClock(seal)
  const database = syntheticSearchDatabase({ rows, dimension, seed: 1 })
  const paddedDimension = 2 ** Math.ceil(Math.log2(dimension))
  const gs = [...new Set([1, 2, 4, 8, paddedDimension].filter((g) => g <= paddedDimension))]
  log('[search] calibrating single SEAL operations')
  const calibration = [await calibrateSealOps('bgv', 100), await calibrateSealOps('bfv', 100)]
  // Every config of the main table is prepared first and sampled round-robin (see runInterleaved).
  // Native twins (same config, key set, vectors, database; uncompressed seeded queries, as the
  // wheel has no zstd) join the same round-robin, so machine noise hits WASM and native alike.
  const defaults: SearchConfigInput = { rows, dimension }
  const withNative = values['no-native'] !== true
  const withApple = values['no-apple'] !== true
  type Group = 'headline' | 'schemes' | 'tradeOff' | 'forms' | 'apple'
  const plan: {
    group: Group
    label: string
    input: SearchConfigInput
    native?: boolean
    apple?: boolean
    kernel?: SearchKernelChoice
    seeded?: boolean
  }[] = [
    { group: 'headline', label: 'default config (zstd queries and responses)', input: defaults },
    {
      group: 'headline',
      label: 'default config, uncompressed seeded queries',
      input: { ...defaults, compression: 'none', responseCompression: 'zstd' },
      native: true,
    },
    {
      // The same config with every product in SEAL: what the WebAssembly kernel saves.
      group: 'headline',
      label: "default config, uncompressed seeded queries, SEAL's evaluator",
      input: { ...defaults, compression: 'none', responseCompression: 'zstd' },
      kernel: 'seal',
    },
    {
      group: 'headline',
      label: 'default config, uncompressed queries and responses',
      input: { ...defaults, compression: 'none', responseCompression: 'none' },
    },
    {
      // Both halves of every query ciphertext: twice the upload, no seed expansion on the server.
      group: 'headline',
      label: 'default config, unseeded uncompressed queries and responses',
      input: { ...defaults, compression: 'none', responseCompression: 'none' },
      seeded: false,
      native: true,
    },
    {
      group: 'headline',
      label: 'server-side baby steps, g chosen by the model, uncompressed query',
      input: { ...defaults, babySteps: 'server', compression: 'none' },
      native: true,
    },
    {
      group: 'schemes',
      label: "BFV, client-side g = D'",
      input: { ...defaults, scheme: 'bfv', babyStep: paddedDimension },
    },
  ]
  if (!headlineOnly) {
    for (const scheme of ['bgv', 'bfv'] as const) {
      for (const babySteps of ['client', 'server'] as const) {
        for (const g of gs) {
          plan.push({
            group: 'tradeOff',
            label: `${scheme} ${babySteps}-side g=${g}`,
            input: { ...defaults, scheme, babySteps, babyStep: g, compression: 'none' },
            native: true,
          })
        }
      }
      plan.push({
        group: 'forms',
        label: `${scheme} coefficient form`,
        input: { ...defaults, scheme, babyStep: paddedDimension, nttForm: false },
      })
    }
  }
  if (withApple) {
    for (const babySteps of ['client', 'server'] as const) {
      plan.push({
        group: 'apple',
        label: `Apple PNNS shape, ${babySteps}-side baby steps`,
        input: { rows: APPLE_ROWS, dimension: APPLE_DIMENSION, babySteps },
        native: true,
        apple: true,
      })
    }
  }
  const appleDatabase = withApple
    ? syntheticSearchDatabase({ rows: APPLE_ROWS, dimension: APPLE_DIMENSION, seed: 4 })
    : undefined
  const harness = withNative ? await NativeSearchHarness.start() : undefined
  const cases: SearchCase[] = []
  const groups: Group[] = []
  let results: { group: Group; measurement: SearchMeasurement }[] = []
  let loadSplit: LoadSplit[] = []
  try {
    for (const item of plan) {
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
    results = measured.map((measurement, i) => ({ group: groups[i] as Group, measurement }))
    log('[search] splitting the load phase')
    loadSplit = [
      await measureLoadSplit(defaults, 'zstd', counts.samples),
      await measureLoadSplit(defaults, 'none', counts.samples),
    ]
  } finally {
    for (const item of cases) item[Symbol.dispose]()
    await harness?.[Symbol.asyncDispose]()
  }
  const pick = (group: Group) => results.filter((r) => r.group === group).map((r) => r.measurement)
  const headlineRows = pick('headline')
  const headline = headlineRows[0] as SearchMeasurement
  const schemes = [headline, ...pick('schemes')]
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
  let large: SearchMeasurement | undefined
  if (largeRows > 0) {
    log(`[search] V=${largeRows}`)
    const big = syntheticSearchDatabase({ rows: largeRows, dimension, seed: 2 })
    large = await measureSearch(
      `V=${largeRows}`,
      { rows: largeRows, dimension },
      big,
      { warmup: 2, samples: Math.max(5, counts.samples >> 2) },
      clock,
    )
    log(`         compute ${large.compute.median.toFixed(1)} ms median; exact ${large.exact}`)
  }
  const threads: ThreadedMeasurement[] = []
  if (!values['no-threads'] && !headlineOnly) {
    for (const v of largeRows > 0 ? [rows, largeRows] : [rows]) {
      for (const count of [1, 2]) {
        log(`[search] V=${v} on ${count} worker thread(s)`)
        const result = await measureThreaded(defaults, { rows: v, dimension, seed: 3 }, count, counts)
        log(`         latency ${result.latency.median.toFixed(2)} ms median; exact ${result.exact}`)
        threads.push(result)
      }
    }
  }
  if (!headlineOnly) log('[search] batch of 8 users')
  const batch = headlineOnly ? undefined : await measureBatch(defaults, database, 8, Math.max(3, counts.samples >> 3))
  const throughput = headlineOnly || values['no-throughput'] ? undefined : await measureThroughput()

  const report: SearchBenchReport = {
    command,
    date: new Date().toISOString(),
    machine: {
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      os: `${osType()} ${release()}`,
      loadAverage: loadavg().map((v) => Math.round(v * 100) / 100),
    },
    samples: counts,
    native: harness ? { ...harness.versions, seal: '4.1.2 (seal-python wheel, built without zstd/zlib)' } : undefined,
    headline,
    headlineRows,
    loadSplit,
    apple: pick('apple'),
    schemes,
    tradeOff,
    forms,
    large,
    threads,
    batch,
    calibration: [...calibration, await calibrateSealOps('bgv', 100), await calibrateSealOps('bfv', 100)],
    ...(throughput ? { throughput } : {}),
  }
  await mkdir(outDir, { recursive: true })
  const markdown = renderSearchReport(report)
  await writeFile(join(outDir, 'search-benchmark.md'), markdown)
  await writeFile(join(outDir, 'search-benchmark.json'), `${JSON.stringify(report, null, 1)}\n`)
  process.stdout.write(`\n${markdown}`)
  log(`wrote ${join(outDir, 'search-benchmark.md')} and .json`)
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof BenchError && error.code === 'INVALID_FLAGS') {
    log(`benchmark:search: ${error.message}`)
    process.exitCode = 2
    return
  }
  log(`benchmark:search failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  process.exitCode = 1
})
