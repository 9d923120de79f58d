/**
 * `npm run benchmark:keys` (root) → `pnpm --filter @sealbox/bench benchmark:keys` → this
 * file: a multi-user simulation on loopback. U users, each with their own Galois keys,
 * send Zipf-distributed encrypted searches to a real server process from a separate
 * load-generator process, with users' keys from below to well above what the workers'
 * key caches hold; for each key store (embedded files, PostgreSQL) and scheduling
 * (affinity, round-robin) it reports throughput normalised to an all-keys-hot
 * baseline, the per-phase time split from Server-Timing, where keys came from (worker
 * cache, node bytes cache, store), and upload → first-query latency. Writes
 * packages/bench/results/keys/keys-benchmark.{md,json,html}. `--help` lists the flags.
 */
import { readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import process from 'node:process'
import { TempPostgres } from '@sealbox/testkit'
import { runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { writeReportFiles } from '../core/writeReportFiles.ts'
import { KEYS_BENCH_CLI } from './keysBenchFlags.ts'
import { keysBenchCommand } from './keysBenchSettings.ts'
import { benchFacts, runScenario, type ScenarioResult } from './keysScenario.ts'
import { type KeysBenchReport, renderKeysHtml, renderKeysMarkdown } from './renderKeysReport.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)

/** keys-benchmark.{md,json,html} in `dir`. */
const writeKeysReport = (dir: string, report: KeysBenchReport) =>
  writeReportFiles(dir, 'keys-benchmark', {
    markdown: renderKeysMarkdown(report),
    json: report,
    html: renderKeysHtml(report),
  })

runProgram('benchmark:keys', KEYS_BENCH_CLI, async (flags) => {
  const command = keysBenchCommand(flags)
  if (command.kind === 'render') {
    // Re-renders a previous run's JSON (report layout changes without measuring again).
    const report = JSON.parse(await readFile(command.file, 'utf8')) as KeysBenchReport
    const paths = await writeKeysReport(dirname(command.file), report)
    log(`[keys] rendered ${paths.markdown}, ${paths.html}`)
    return
  }
  const { settings } = command
  const facts = await benchFacts(settings, log)
  log(
    `[keys] per-worker key cache ${(facts.keyCacheBytes / 2 ** 20).toFixed(1)} MiB = ${(facts.keyCacheBytes / facts.keyHeapBytes).toFixed(1)} users' keys`,
  )
  const postgres = settings.stores.includes('postgres') ? await TempPostgres.start() : undefined
  const scenarios: ScenarioResult[] = []
  try {
    for (const store of settings.stores) {
      for (const scheduler of settings.schedulers) {
        for (const storeKernelForms of settings.storeKernelForms) {
          scenarios.push(await runScenario(settings, facts, { store, scheduler, storeKernelForms }, postgres, log))
        }
      }
    }
  } finally {
    await postgres?.stop()
  }
  const { config, tokensFile: _tokensFile, ...sizes } = facts
  const report: KeysBenchReport = {
    generatedAt: new Date().toISOString(),
    machine: machineInfo(),
    loadAverage: loadAverage(),
    settings,
    facts: {
      ...sizes,
      configId: config.configId,
      polyModulusDegree: config.polyModulusDegree,
      galoisSteps: config.galoisSteps,
      rows: config.rows,
      dimension: config.dimension,
    },
    scenarios,
  }
  const paths = await writeKeysReport(settings.outDir, report)
  log(`[keys] wrote ${paths.markdown}, ${paths.json}, ${paths.html}`)
})
