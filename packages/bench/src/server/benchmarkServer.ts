/**
 * `npm run benchmark:server` (root) → `pnpm --filter @sealbox/bench benchmark:server`
 * → this file: the Node version of the Swift HE/NIO study's table. Rows: Direct
 * (he-core in this process), and real server processes with the `inline`, `pool`
 * (1 and 2 threads) and `process` executors; workloads: private search and a small
 * program. Writes results/server/server.{md,json,html}. `--help` lists the flags.
 */
import process from 'node:process'
import { commandLine, runProgram } from '../core/defineCli.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { ProgressBoard } from '../core/ProgressBoard.ts'
import { writeReportFiles } from '../core/writeReportFiles.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import type { PreparedWorkload, Workload } from '../load/PreparedWorkload.ts'
import { prepareHeavyProgramWorkload, prepareProgramWorkload } from '../load/programWorkload.ts'
import { prepareSearchWorkload } from '../load/searchWorkload.ts'
import type { CostFloodRecord } from './CostFloodRecord.ts'
import { measureCostFlood } from './measureCostFlood.ts'
import { measureDirect } from './measureDirect.ts'
import { measureServerRow } from './measureServerRow.ts'
import { renderServerHtml } from './renderServerHtml.ts'
import { mainTable, renderServerMarkdown } from './renderServerMarkdown.ts'
import { LOOP_RESOLUTION_MS } from './runStats.ts'
import {
  buildCells,
  buildHeadline,
  type RunRecord,
  type ServerBenchReport,
  type ServerRunRecord,
} from './ServerBenchReport.ts'
import { resolveServerBenchSettings, SERVER_BENCH_CLI, type ServerBenchSettings } from './serverBenchFlags.ts'

const log = (line: string) => process.stderr.write(`${line}\n`)

async function prepare(settings: ServerBenchSettings): Promise<PreparedWorkload[]> {
  const prepared: PreparedWorkload[] = []
  for (const workload of settings.workloads) {
    const started = performance.now()
    const prepareWorkload = {
      search: prepareSearchWorkload,
      program: prepareProgramWorkload,
      'program-heavy': prepareHeavyProgramWorkload,
    }[workload]
    prepared.push(await prepareWorkload())
    log(`prepared ${workload}: keys and requests made client side in ${Math.round(performance.now() - started)} ms`)
  }
  return prepared
}

async function run(settings: ServerBenchSettings, prepared: PreparedWorkload[]) {
  const serverRows = settings.rows.filter((row) => row.kind === 'server')
  const withDirect = settings.rows.some((row) => row.kind === 'direct')
  const cellsPerServer = prepared.length * settings.concurrency.length
  const units = settings.repeats * ((withDirect ? prepared.length : 0) + serverRows.length * (1 + cellsPerServer))
  const progress = new ProgressBoard(process.stderr)
  const started = performance.now()
  let done = 0
  const tick = (detail: string) => {
    const elapsedMs = performance.now() - started
    const fraction = done / units
    const etaMs = done > 0 ? (elapsedMs / done) * (units - done) : undefined
    progress.update([{ label: 'benchmark:server', fraction, elapsedMs, etaMs, detail }], undefined, elapsedMs)
  }
  const servers: ServerRunRecord[] = []
  const runs: RunRecord[] = []
  const failures: ServerBenchReport['failures'] = []
  for (let repeat = 1; repeat <= settings.repeats; repeat++) {
    const tag = `(run ${repeat}/${settings.repeats})`
    if (withDirect) {
      for (const workload of prepared) {
        tick(`direct ${workload.workload} ${tag}`)
        runs.push(await measureDirect(workload, repeat, settings))
        done++
      }
    }
    // Rotate the server order per repeat so a burst of outside load does not always hit the same row.
    const shift = (repeat - 1) % Math.max(1, serverRows.length)
    for (const row of [...serverRows.slice(shift), ...serverRows.slice(0, shift)]) {
      tick(`${row.id} starting ${tag}`)
      const cellsBefore = done
      let result: Awaited<ReturnType<typeof measureServerRow>>
      try {
        result = await measureServerRow({
          row,
          repeat,
          workloads: prepared,
          concurrency: settings.concurrency,
          requests: settings.requests,
          durationSeconds: settings.durationSeconds,
          probeHz: settings.probeHz,
          idleMs: settings.idleMs,
          onCell: (workload, concurrency) => {
            // The first cell completes the start-up unit; each later one the previous cell.
            done++
            tick(`${row.id} ${workload.workload} c=${concurrency} ${tag}`)
          },
          log,
        })
      } catch (error) {
        // One failed server run should not throw away the others: record it and go on.
        const message = error instanceof Error ? error.message : String(error)
        log(`\n  ! ${row.id} ${tag} failed: ${message}`)
        failures.push({ row: row.id, repeat, message })
        done = cellsBefore + 1 + cellsPerServer
        continue
      }
      done++
      servers.push(result.server)
      runs.push(...result.runs)
    }
  }
  progress.finish(`[benchmark:server] done in ${((performance.now() - started) / 60_000).toFixed(1)} min`)
  return { servers, runs, failures }
}

runProgram('benchmark:server', SERVER_BENCH_CLI, async (flags, argv) => {
  const settings = resolveServerBenchSettings(flags)
  const startedAt = new Date()
  const started = performance.now()
  const loadAverageBefore = loadAverage()
  const machine = machineInfo()
  log(
    `sealbox benchmark:server: rows ${settings.rows.map((r) => r.id).join(', ')}; ${settings.workloads.join(' + ')}; ` +
      `concurrency ${settings.concurrency.join(', ')}; ≤${settings.requests} requests or ${settings.durationSeconds} s per cell; ` +
      `${settings.repeats} run(s); ${machine.cores} cores, load average ${loadAverageBefore.join(' / ')}`,
  )
  let prepared: PreparedWorkload[] = []
  try {
    prepared = await prepare(settings)
    const { servers, runs, failures } = await run(settings, prepared)
    const searchWorkload = prepared.find((p) => p.workload === 'search')
    let costFlood: CostFloodRecord | undefined
    if (searchWorkload && settings.costFloodSeconds > 0) {
      log(`cost flood: ${settings.costFloodSeconds} s of maximum-cost programs from one tenant, searches from another`)
      try {
        costFlood = await measureCostFlood({
          search: searchWorkload,
          floodSeconds: settings.costFloodSeconds,
          quick: settings.quick,
          log,
        })
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        log(`  ! cost flood failed: ${message}`)
        failures.push({ row: 'cost-flood', repeat: 1, message })
      }
    }
    const cells = buildCells(settings.rows, runs)
    const { outDir, ...recorded } = settings
    const report: ServerBenchReport = {
      kind: 'sealbox-server-table',
      version: 1,
      command: commandLine('npm run benchmark:server', argv),
      date: startedAt.toISOString(),
      durationMs: performance.now() - started,
      machine,
      loadAverageBefore,
      loadAverageAfter: loadAverage(),
      settings: recorded,
      serverEnv: { ...BENCH_SERVER_ENV },
      workloads: prepared.map((p) => ({ workload: p.workload, title: p.title, facts: p.facts })),
      loopResolutionMs: LOOP_RESOLUTION_MS,
      servers,
      failures,
      runs,
      cells,
      headline: buildHeadline(settings.rows, settings.workloads, settings.concurrency, cells, servers),
      ...(costFlood ? { costFlood } : {}),
    }
    const tables = Object.fromEntries(settings.workloads.map((w) => [w, mainTable(report, w)])) as Record<
      Workload,
      string
    >
    const markdown = renderServerMarkdown(report)
    const paths = await writeReportFiles(outDir, 'server', {
      markdown,
      json: report,
      html: renderServerHtml(report, tables),
    })
    process.stdout.write(`\n${markdown.split('## How it was measured')[0]}`)
    log(`wrote ${paths.markdown}\n      ${paths.json}\n      ${paths.html}`)
  } finally {
    for (const workload of prepared) workload[Symbol.dispose]()
  }
})
