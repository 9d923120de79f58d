import { BenchError } from '../BenchError.ts'
import { formatDuration, ProgressLine, type ProgressStream } from '../cli/ProgressLine.ts'
import type { BenchEngine, EngineId } from '../engines/BenchEngine.ts'
import { ENGINE_IDS } from '../engines/BenchEngine.ts'
import { BenchPageHost } from '../engines/browser/BenchPageHost.ts'
import { ChromiumEngine } from '../engines/browser/ChromiumEngine.ts'
import { FirefoxEngine } from '../engines/browser/FirefoxEngine.ts'
import { WebKitEngine } from '../engines/browser/WebKitEngine.ts'
import { NativeEngine } from '../engines/native/NativeEngine.ts'
import { NodeEngine } from '../engines/node/NodeEngine.ts'
import { findOp } from '../harness/opCatalog.ts'
import type { HarnessEvent, HarnessResult } from '../protocol/benchProtocol.ts'
import { loadAverage, machineInfo } from '../report/machineInfo.ts'
import { writeReportFiles } from '../report/writeReportFiles.ts'
import { benchParametersDescription, type EngineColumn, type OpTableReport } from './OpTableReport.ts'
import type { OpTableSettings } from './opTableSettings.ts'
import { loadPublishedTimings, PUBLISHED_SOURCE, publishedKey } from './publishedTimings.ts'
import { renderOpTableHtml } from './renderOpTableHtml.ts'
import { renderOpTableMarkdown } from './renderOpTableMarkdown.ts'
import { WorkEstimate } from './WorkEstimate.ts'

export interface RunOpTableOptions {
  settings: OpTableSettings
  /** The command line, recorded in the report. */
  command: string
  /** Progress bars (stderr). */
  progress: ProgressStream
  /** One-line messages (skipped engines, written files). */
  log: (line: string) => void
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
      throw new Error(`unknown engine ${unreachable}`)
    }
  }
}

/** What arrived before a run failed, so a crashed browser still fills the cells it reached. */
function partialResult(events: HarnessEvent[]): HarnessResult | undefined {
  const cells = events.flatMap((e) => (e.type === 'cell' ? [e.cell] : []))
  if (cells.length === 0) return undefined
  return {
    runtime: { timerResolutionUs: Number.NaN },
    envs: events.flatMap((e) => (e.type === 'env' ? [e.env] : [])),
    cells,
    skipped: events.flatMap((e) => (e.type === 'skip' ? [e.row] : [])),
    leakedHandles: 0,
    wallMs: 0,
  }
}

async function runEngine(engine: BenchEngine, options: RunOpTableOptions): Promise<EngineColumn> {
  const column: EngineColumn = { id: engine.id, label: engine.label, status: 'skipped' }
  const availability = await engine.detect()
  if (!availability.available) {
    options.log(`[${engine.id}] skipped: ${availability.reason}. Install: ${availability.install}`)
    return { ...column, reason: availability.reason, install: availability.install }
  }
  const estimate = new WorkEstimate(options.settings.plan)
  const bar = new ProgressLine(options.progress, engine.id.padEnd(8))
  const events: HarnessEvent[] = []
  const started = performance.now()
  let detail = 'starting'
  const draw = () => {
    const elapsedMs = performance.now() - started
    const etaMs = estimate.remainingMs(elapsedMs)
    const fraction = etaMs === undefined ? 0 : elapsedMs / (elapsedMs + etaMs)
    bar.update({ fraction, elapsedMs, etaMs, detail })
  }
  const ticker = setInterval(draw, 1000)
  column.loadAverageBefore = loadAverage()
  try {
    const outcome = await engine.run({
      plan: options.settings.plan,
      // Browsers are slower than the Node-based estimate, and big n is slower still when loaded.
      timeoutMs: Math.max(10 * 60_000, 6 * estimate.totalMs),
      onEvent: (event) => {
        events.push(event)
        estimate.record(event)
        if (event.type === 'phase') detail = `n=${event.n} ${event.label}`
        draw()
      },
    })
    column.status = 'ok'
    column.result = outcome.result
    column.versions = outcome.versions
  } catch (error) {
    column.status = 'failed'
    column.reason = error instanceof Error ? error.message : String(error)
    const partial = partialResult(events)
    if (partial) column.result = partial
  } finally {
    clearInterval(ticker)
    column.wallMs = performance.now() - started
    column.loadAverageAfter = loadAverage()
  }
  const took = formatDuration(column.wallMs)
  bar.finish(
    column.status === 'ok'
      ? `done in ${took} (${column.result?.cells.length ?? 0} cells)`
      : `FAILED after ${took}: ${column.reason}`,
  )
  return column
}

/**
 * `npm run benchmark`: runs the plan in every selected engine, one after the other
 * (they share 2 cores), then writes operations.{md,json,html}.
 */
export async function runOpTable(options: RunOpTableOptions): Promise<OpTableOutcome> {
  const { settings } = options
  const startedAt = new Date()
  const loadAverageBefore = loadAverage()
  const host = new BenchPageHost()
  const engines: EngineColumn[] = []
  try {
    for (const id of ENGINE_IDS) {
      if (!settings.engines.includes(id)) continue
      engines.push(await runEngine(createEngine(id, host), options))
    }
  } finally {
    await host.close()
  }
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
    json: report,
    html: renderOpTableHtml(report),
  })
  return { report, paths }
}
