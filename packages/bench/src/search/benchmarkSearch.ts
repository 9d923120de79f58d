/**
 * `npm run benchmark:search` (root) → `pnpm --filter @sealbox/bench benchmark:search` →
 * this file: times the private search of @sealbox/he-core on this machine and writes
 * packages/bench/results/search/search-benchmark.{md,json}. `--help` lists the flags.
 * Three steps: plan the configs (planSearchBench), measure them (measureSearchBench), write
 * the report (writeSearchReport).
 */
import { dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import type { SearchLinkName } from '@sealbox/he-core/search'
import { commandLine, runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { writeStampedReport } from '../core/writeReportFiles.ts'
import { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { BrowserSearchClient } from './browserSearchClient.ts'
import { browserCase, endToEndCases } from './endToEndCases.ts'
import { measureClusterSearch } from './measureClusterSearch.ts'
import { measureEndToEnd } from './measureEndToEnd.ts'
import type { MillionRowsCase } from './measureMillionRows.ts'
import { measureSearchBench } from './measureSearchBench.ts'
import { measureServerThroughput } from './measureServerThroughput.ts'
import { planSearchBench, throughputPlan } from './planSearchBench.ts'
import { renderClusterSearch } from './renderClusterSearch.ts'
import { endToEndPaths, renderEndToEnd } from './renderEndToEnd.ts'
import { runMillionBench } from './runMillionBench.ts'
import { SEARCH_BENCH_CLI } from './searchBenchFlags.ts'
import { runSentenceBench } from './sentences/runSentenceBench.ts'
import { writeSearchReport, writeThroughputOnly } from './writeSearchReport.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)

runProgram('benchmark:search', SEARCH_BENCH_CLI, async (values, argv) => {
  const here = dirname(fileURLToPath(import.meta.url))
  // npm/pnpm run the script in the package directory; a relative --out means the caller's directory.
  const outDir = values.out
    ? resolve(process.env.INIT_CWD ?? process.cwd(), values.out)
    : join(here, '..', '..', 'results', 'search')
  const command = commandLine('npm run benchmark:search', argv)
  const measureThroughput = () =>
    measureServerThroughput({ plan: throughputPlan(values.quick === true), command, cores: machineInfo().cores, log })
  const measureE2e = async () => {
    // Native twins of each default config's server side, unless --no-native (or the venv cannot be made).
    let harness: NativeSearchHarness | undefined
    if (values['no-native'] !== true) {
      harness = await NativeSearchHarness.start().catch((error: unknown) => {
        log(
          `native SEAL unavailable for the end-to-end twins: ${error instanceof Error ? error.message : String(error)}`,
        )
        return undefined
      })
    }
    // The client in Chromium too, for the default at Apple's shape (and at D = 16 in a full run).
    let browser: BrowserSearchClient | undefined
    if (values['no-browser'] !== true) {
      browser = await BrowserSearchClient.start().catch((error: unknown) => {
        log(`Chromium unavailable for the end-to-end rows: ${error instanceof Error ? error.message : String(error)}`)
        return undefined
      })
    }
    const plan = endToEndCases(values.quick === true)
    const report = await measureEndToEnd({
      cases: plan.cases,
      limits: plan.limits,
      links: ['broadband', 'mobile'],
      samples: values.quick ? 5 : 15,
      cacheDir: join(here, '..', '..', '.cache'),
      command,
      log,
      twins: { harness, samples: values.quick ? 3 : 10 },
      ...(browser ? { browser: { client: browser, cases: browserCase } } : {}),
    }).finally(async () => {
      await harness?.[Symbol.asyncDispose]()
      await browser?.[Symbol.asyncDispose]()
    })
    const paths = endToEndPaths(outDir)
    const markdown = await writeStampedReport({
      markdownPath: paths.md,
      jsonPath: paths.json,
      markdown: renderEndToEnd(report),
      json: report,
    })
    log(`wrote ${paths.md} and .json`)
    return markdown
  }
  if (values.million) {
    const markdown = await runMillionBench({
      rows: values['million-rows'].split(',').map(Number),
      cases: values['million-cases'].split(',') as MillionRowsCase['name'][],
      queries: values.samples ?? 12,
      outDir,
      command,
      log,
      subjectsOf: (rows) => values['million-subjects'] ?? Math.max(1, Math.round(rows / 10_000)),
      ...(values['million-links'] === 'none'
        ? {}
        : {
            links: {
              names: values['million-links'].split(',') as SearchLinkName[],
              samples: Math.min(values.samples ?? 12, 5),
              cacheDir: join(here, '..', '..', '.cache'),
            },
          }),
    })
    process.stdout.write(`\n${markdown}`)
    return
  }
  if (values.sentences) {
    const markdown = await runSentenceBench({
      settings: values['sentence-settings'].split(',').map((part) => (part === 'auto' ? 'auto' : Number(part))),
      queries: values.samples ?? 200,
      workers: 2,
      cacheDir: join(here, '..', '..', '.cache'),
      outDir,
      command,
      log,
    })
    process.stdout.write(`\n${markdown}`)
    return
  }
  if (values.clusters) {
    const before = loadAverage()
    const queries = values.samples ?? (values.quick ? 5 : 20)
    const rows = await measureClusterSearch({
      rows: [values.rows, ...(values.quick || values.large === 0 ? [] : [values.large])],
      dimension: values['cluster-dimension'],
      settings: values['cluster-settings'].split(',').map((part) => (part === 'auto' ? 'auto' : Number(part))),
      queries,
      warmup: Math.min(values.warmup, 2),
      ...(values['cluster-topics'] === undefined ? {} : { topics: values['cluster-topics'] }),
      log,
    })
    const report = {
      command,
      date: new Date().toISOString(),
      loadAverage: { before, after: loadAverage() },
      queries,
      rows,
    }
    const base =
      values['cluster-topics'] === undefined ? 'search-clusters' : `search-clusters-${values['cluster-topics']}-topics`
    const markdown = await writeStampedReport({
      markdownPath: join(outDir, `${base}.md`),
      jsonPath: join(outDir, `${base}.json`),
      markdown: renderClusterSearch(report),
      json: report,
    })
    process.stdout.write(`\n${markdown}`)
    log(`wrote ${join(outDir, `${base}.md`)} and .json`)
    return
  }
  if (values['end-to-end-only']) {
    process.stdout.write(`\n${await measureE2e()}`)
    return
  }
  if (values['throughput-only']) {
    const section = await writeThroughputOnly(outDir, await measureThroughput())
    process.stdout.write(`\n${section}`)
    log(`wrote the throughput section of ${join(outDir, 'search-benchmark.md')} and .json`)
    return
  }

  const { rows, dimension } = values
  const headlineOnly = values.headline === true
  const plan = planSearchBench({ rows, dimension, headlineOnly, withApple: values['no-apple'] !== true })
  const results = await measureSearchBench(plan, {
    rows,
    dimension,
    counts: { warmup: values.warmup, samples: values.samples ?? (values.quick ? 10 : 40) },
    largeRows: values.quick || headlineOnly ? 0 : values.large,
    headlineOnly,
    withNative: values['no-native'] !== true,
    withThreads: !values['no-threads'] && !headlineOnly,
    measureThroughput: headlineOnly || values['no-throughput'] ? undefined : measureThroughput,
    log,
  })
  const machine = machineInfo()
  const markdown = await writeSearchReport(outDir, {
    command,
    date: new Date().toISOString(),
    machine: {
      cpuModel: machine.cpuModel,
      cores: machine.cores,
      node: machine.node,
      os: machine.os,
      loadAverage: loadAverage(),
    },
    ...results,
  })
  process.stdout.write(`\n${markdown}`)
  log(`wrote ${join(outDir, 'search-benchmark.md')} and .json`)
  if (!headlineOnly && values['no-end-to-end'] !== true) process.stdout.write(`\n${await measureE2e()}`)
})
