import { geometricMean } from '../core/stats.ts'
import type { EngineId } from '../engines/BenchEngine.ts'
import {
  type CellStatistic,
  cellRatio,
  type EngineColumn,
  type OpTableReport,
  type OpTableRow,
} from './OpTableReport.ts'
import { PUBLISHED_LABELS, type PublishedColumn } from './publishedTimings.ts'

/** Engines that produced results, in column order. */
export function engineColumns(report: OpTableReport): EngineColumn[] {
  return report.engines.filter((engine) => engine.status === 'ok')
}

/** Ratio columns: every JS engine against Node, and every engine against Native. */
export function ratioPairs(report: OpTableReport): Array<{ a: EngineColumn; b: EngineColumn; heading: string }> {
  const ok = engineColumns(report)
  const native = ok.find((e) => e.id === 'native')
  const node = ok.find((e) => e.id === 'node')
  const pairs: Array<{ a: EngineColumn; b: EngineColumn; heading: string }> = []
  if (native) {
    for (const a of ok) if (a.id !== 'native') pairs.push({ a, b: native, heading: `${a.shortName}/Native` })
  }
  if (node) {
    for (const a of ok)
      if (a.id !== 'node' && a.id !== 'native') pairs.push({ a, b: node, heading: `${a.shortName}/Node` })
  }
  return pairs
}

/** The rows behind the headline: the published table's rows (sealbench origin) of one n. */
function headlineRows(rows: readonly OpTableRow[], n: number): OpTableRow[] {
  return rows.filter((row) => row.n === n && row.spec.origin === 'sealbench')
}

function geometricMeanOf(ratios: ReadonlyArray<number | undefined>): number | undefined {
  const valid = ratios.filter((r): r is number => r !== undefined && Number.isFinite(r) && r > 0)
  return valid.length > 0 ? geometricMean(valid) : undefined
}

/**
 * Geometric mean of `a / b` over the published table's rows of one n (our extra rows and
 * Setup excluded, so it compares with the published ratios). Undefined when no row has both.
 */
export function meanRatio(
  rows: readonly OpTableRow[],
  n: number,
  a: EngineId,
  b: EngineId,
  pick: CellStatistic = 'medianUs',
): number | undefined {
  return geometricMeanOf(headlineRows(rows, n).map((row) => cellRatio(row, a, b, pick)))
}

/** The same geometric mean over the published figures (zeros from coarse browser timers skipped). */
export function publishedMeanRatio(
  rows: readonly OpTableRow[],
  n: number,
  a: PublishedColumn,
  b: PublishedColumn,
): number | undefined {
  return geometricMeanOf(
    headlineRows(rows, n).map((row) => {
      const x = row.published?.values[a]
      const y = row.published?.values[b]
      return x !== undefined && y !== undefined && x > 0 && y > 0 ? x / y : undefined
    }),
  )
}

/** Published ratio columns shown next to ours: each published column over published Native. */
export const PUBLISHED_RATIOS: ReadonlyArray<{ a: PublishedColumn; heading: string }> = (
  ['node', 'chrome', 'firefox', 'safari'] as const
).map((a) => ({ a, heading: `pub. ${PUBLISHED_LABELS[a]}/Native` }))

/** One line per engine about its sanity checks (failures grouped by n and scheme). */
export function sanitySummary(engine: EngineColumn): string {
  const envs = engine.result?.envs ?? []
  const checks = envs.flatMap((env) => env.sanity)
  const failed = envs.flatMap((env) => env.sanity.filter((check) => !check.ok).map((check) => ({ env, check })))
  if (checks.length === 0) return 'no checks ran'
  if (failed.length === 0) return `all ${checks.length} checks passed`
  const byEnv = new Map<string, string[]>()
  for (const { env, check } of failed) {
    const key = `n=${env.n} ${env.scheme.toUpperCase()}${env.freshNoiseBudgetBits === 0 ? ' (fresh noise budget 0 bits)' : ''}`
    byEnv.set(key, [...(byEnv.get(key) ?? []), check.check])
  }
  const details = [...byEnv].map(([key, names]) => `${key}: ${names.join(', ')}`).join('; ')
  return `${checks.length - failed.length} of ${checks.length} checks passed; failed: ${details}`
}
