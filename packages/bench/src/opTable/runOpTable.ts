import { BenchError } from '../BenchError.ts'
import { loadAverage, machineInfo } from '../core/machineInfo.ts'
import { formatDuration, ProgressBoard, type ProgressStream } from '../core/ProgressBoard.ts'
import { writeReportFiles } from '../core/writeReportFiles.ts'
import type { BenchEngine, EngineId } from '../engines/BenchEngine.ts'
import { ENGINE_IDS } from '../engines/BenchEngine.ts'
import { BenchPageHost } from '../engines/browser/BenchPageHost.ts'
import { ChromiumEngine } from '../engines/browser/ChromiumEngine.ts'
import { FirefoxEngine } from '../engines/browser/FirefoxEngine.ts'
import { WebKitEngine } from '../engines/browser/WebKitEngine.ts'
import { NativeEngine } from '../engines/native/NativeEngine.ts'
import { NodeEngine } from '../engines/node/NodeEngine.ts'
import { findOp } from '../harness/opCatalog.ts'
import { planCommands } from '../harness/runPlan.ts'
import { EngineRunner } from './EngineRunner.ts'
import { benchParametersDescription, type OpTableReport } from './OpTableReport.ts'
import type { OpTableSettings } from './opTableSettings.ts'
import { loadPublishedTimings, PUBLISHED_SOURCE, publishedKey } from './publishedTimings.ts'
import { renderOpTableHtml } from './renderOpTableHtml.ts'
import { renderOpTableMarkdown } from './renderOpTableMarkdown.ts'

export interface RunOpTableOptions {
  settings: OpTableSettings
  /** The command line, recorded in the report. */
  command: string
  /** Progress bars and one-line messages (stderr). */
  progress: ProgressStream
}

/** The files a run wrote. */
export interface OpTableOutcome {
  report: OpTableReport
  paths: { markdown: string; json: string; html: string }
}

function createEngine(id: EngineId, host: BenchPageHost): BenchEngine {
  switch (id) {
    case 'native':
      return new NativeEngine()
    case 'node':
      return new NodeEngine()
    case 'chromium':
      return new ChromiumEngine(host)
    case 'firefox':
      return new FirefoxEngine(host)
    case 'webkit':
      return new WebKitEngine(host)
    default: {
      const unreachable: never = id
      throw new BenchError('INTERNAL', `unknown engine ${unreachable}`)
    }
  }
}

function roundFloat(value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value
}

/**
 * `npm run benchmark`: starts every selected engine, then walks the plan one command at
 * a time (warm-up, open an (n, scheme) context, a cell, close, finish). Interleaved (the
 * default), every engine measures a cell before the next cell starts, the first engine
 * rotating, so background load on a shared machine hits all columns alike; sequential
 * runs one engine's whole plan after the other's. Only one engine computes at any
 * moment. Writes operations.{md,json,html}.
 */
export async function runOpTable(options: RunOpTableOptions): Promise<OpTableOutcome> {
  const { settings } = options
  const startedAt = new Date()
  const loadAverageBefore = loadAverage()
  const host = new BenchPageHost()
  const board = new ProgressBoard(options.progress)
  const log = (line: string | undefined) => {
    if (line) board.log(line)
  }
  const runners = ENGINE_IDS.filter((id) => settings.engines.includes(id)).map(
    (id) => new EngineRunner(createEngine(id, host), settings.plan),
  )
  const started = performance.now()
  const loadSamples: OpTableReport['loadSamples'] = []
  const sampleLoad = () => loadSamples.push({ atMs: Math.round(performance.now() - started), load1: loadAverage()[0] })
  sampleLoad()
  const loadTicker = setInterval(sampleLoad, 5000)
  const draw = () => {
    const items = runners.filter((r) => r.column.status !== 'skipped').map((r) => r.progress())
    const remaining = items.reduce((sum, item) => sum + (item.etaMs ?? 0), 0)
    const unknown = items.some((item) => item.etaMs === undefined)
    const eta = unknown ? '--:--' : formatDuration(remaining)
    board.update(
      items,
      `total ${formatDuration(performance.now() - started)}, ETA ${eta} (${settings.schedule})`,
      performance.now(),
    )
  }
  const ticker = setInterval(draw, 1000)
  try {
    for (const runner of runners) log(await runner.start())
    const commands = planCommands(settings.plan)
    if (settings.schedule === 'sequential') {
      for (const runner of runners) {
        for (const command of commands) log(await runner.run(command))
        await runner.close()
      }
    } else {
      let cellIndex = 0
      for (const command of commands) {
        const alive = runners.filter((r) => r.alive)
        // Rotate who goes first, so no engine always measures right after the same other one.
        const shift = command.type === 'cell' ? cellIndex++ % Math.max(1, alive.length) : 0
        for (const runner of [...alive.slice(shift), ...alive.slice(0, shift)]) {
          log(await runner.run(command))
          draw()
        }
      }
    }
  } finally {
    clearInterval(ticker)
    clearInterval(loadTicker)
    for (const runner of runners) await runner.close()
    draw()
    board.finish()
    await host.close()
  }
  const engines = runners.map((r) => r.column)
  if (!engines.some((engine) => engine.status === 'ok')) {
    throw new BenchError('ENGINE_FAILED', 'no engine produced results (see the lines above)')
  }
  const published = loadPublishedTimings()
  const report: OpTableReport = {
    kind: 'sealbox-operation-table',
    version: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    wallMs: Date.now() - startedAt.getTime(),
    command: options.command,
    machine: machineInfo(),
    loadAverageBefore,
    loadAverageAfter: loadAverage(),
    loadSamples,
    schedule: settings.schedule,
    parameters: benchParametersDescription(settings.plan.ns),
    plan: settings.plan,
    engines,
    catalog: settings.plan.ops.flatMap((id) => findOp(id) ?? []),
    published: settings.plan.ns.flatMap((n) =>
      settings.plan.ops.flatMap((id) => published.get(publishedKey(n, id)) ?? []),
    ),
    publishedSource: PUBLISHED_SOURCE,
  }
  const paths = await writeReportFiles(settings.outDir, 'operations', {
    markdown: renderOpTableMarkdown(report),
    // ns precision is plenty for µs samples, and halves the file.
    json: JSON.parse(JSON.stringify(report, (_key, value: unknown) => roundFloat(value))),
    html: renderOpTableHtml(report),
  })
  return { report, paths }
}
