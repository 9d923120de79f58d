import type { EngineId } from '../engines/BenchEngine.ts'
import { geometricMean } from '../harness/stats.ts'
import { cellRatio, type EngineColumn, type OpTableReport, type OpTableRow } from './OpTableReport.ts'

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
    for (const a of ok) if (a.id !== 'native') pairs.push({ a, b: native, heading: `${short(a)}/Native` })
  }
  if (node) {
    for (const a of ok)
      if (a.id !== 'node' && a.id !== 'native') pairs.push({ a, b: node, heading: `${short(a)}/Node` })
  }
  return pairs
}

/** Short column name for ratio headings. */
export function short(engine: EngineColumn): string {
  const names: Record<EngineId, string> = {
    native: 'Native',
    node: 'Node',
    chromium: 'Chromium',
    firefox: 'Firefox',
    webkit: 'WebKit',
  }
  return names[engine.id]
}

/**
 * Geometric mean of `a / b` over the timed rows of one n (Setup rows excluded: context
 * construction is a one-off with its own story). Undefined when no row has both.
 */
export function meanRatio(rows: readonly OpTableRow[], n: number, a: EngineId, b: EngineId): number | undefined {
  const ratios = rows
    .filter((row) => row.n === n && row.spec.group !== 'Setup')
    .map((row) => cellRatio(row, a, b))
    .filter((r): r is number => r !== undefined && r > 0)
  return ratios.length > 0 ? geometricMean(ratios) : undefined
}

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
