import type { MachineInfo } from '../core/machineInfo.ts'
import type { EngineId } from '../engines/BenchEngine.ts'
import { DEFAULT_COEFF_BITS, PLAIN_MODULUS_BITS, SEARCH_BENCH_PARAMS } from '../harness/benchParameters.ts'
import { contextExists } from '../harness/HarnessSession.ts'
import { findOp, type OpSpec, opApplies } from '../harness/opCatalog.ts'
import type { BenchPlan, CellResult, HarnessResult } from '../protocol/benchProtocol.ts'
import { type PublishedRow, publishedKey } from './publishedTimings.ts'

const SEARCH_LOG_Q = SEARCH_BENCH_PARAMS.coeffModulusBits.reduce((sum, bits) => sum + bits, 0)

/** One column of the table after the run. */
export interface EngineColumn {
  id: EngineId
  label: string
  /** The engine's name in ratio headings and its chart colour (`BenchEngine`). */
  shortName: string
  color: string
  status: 'ok' | 'skipped' | 'failed'
  /** Why it was skipped or failed. */
  reason?: string
  /** `wallMs` is the time this engine was busy (its own commands), not the run's wall time. */
  /** How to install it, when skipped. */
  install?: string
  versions?: Record<string, string>
  wallMs?: number
  loadAverageBefore?: [number, number, number]
  loadAverageAfter?: [number, number, number]
  result?: HarnessResult
}

/** Everything a run produced: the JSON file, and the input of the Markdown and HTML reports. */
export interface OpTableReport {
  kind: 'sealbox-operation-table'
  version: 1
  startedAt: string
  finishedAt: string
  wallMs: number
  command: string
  machine: MachineInfo
  loadAverageBefore: [number, number, number]
  loadAverageAfter: [number, number, number]
  /** The 1-minute load average every few seconds during the run (other work on the machine shows here). */
  loadSamples: Array<{ atMs: number; load1: number }>
  /** How engines took turns: each cell across all engines, or engine after engine. */
  schedule: 'interleaved' | 'sequential'
  parameters: {
    coeffModulus: string
    coeffModulusBits: Record<string, readonly number[]>
    plainModulus: string
    ckksScale: string
    securityLevel: string
  }
  plan: BenchPlan
  engines: EngineColumn[]
  /** The planned rows' definitions (what is timed). */
  catalog: OpSpec[]
  /** Published figures of the planned rows (µs). */
  published: PublishedRow[]
  publishedSource: string
}

/** Parameters exactly as sealbench sets them, for the report header. */
export function benchParametersDescription(ns: readonly number[]): OpTableReport['parameters'] {
  return {
    coeffModulus: 'CoeffModulus.BFVDefault(n, tc128) for BFV, BGV and CKKS',
    coeffModulusBits: Object.fromEntries(ns.map((n) => [String(n), DEFAULT_COEFF_BITS[n] ?? []])),
    plainModulus: `PlainModulus.Batching(n, ${PLAIN_MODULUS_BITS}) for BFV/BGV`,
    ckksScale: "sealbench's safe_scale(): 2^(bits of the last data prime / 2 - 1)",
    securityLevel:
      'SEALContext(parms, expandModChain=true, SecLevelType.none), as SEAL\'s own benchmark does ("DO NOT USE AS EXAMPLE"): benchmark parameters, not secure settings',
  }
}

/** One line of the table: an (n, op) with a cell per engine. */
export interface OpTableRow {
  n: number
  logQ: number
  spec: OpSpec
  cells: Partial<Record<EngineId, CellResult>>
  /** Per engine: why there is no cell (failed op), when there is none. */
  missing: Partial<Record<EngineId, string>>
  published: PublishedRow | undefined
}

/**
 * The table's rows in the published order (per n: KeyGen, BFV, CKKS, then BGV, Setup),
 * leaving out rows sealbench would not register at that n.
 */
export function opTableRows(report: OpTableReport): OpTableRow[] {
  const published = new Map(report.published.map((row) => [publishedKey(row.n, `${row.group}/${row.op}`), row]))
  const rows: OpTableRow[] = []
  for (const n of report.plan.ns) {
    const keyswitching = (DEFAULT_COEFF_BITS[n]?.length ?? 0) > 1
    const facts = { usingKeyswitching: keyswitching, coeffModulusCount: keyswitching ? 2 : 1 }
    for (const id of report.plan.ops) {
      const spec = findOp(id)
      if (!spec || !opApplies(spec, facts)) continue
      if (report.plan.limits?.some((limit) => limit.scheme === spec.scheme && n > limit.maxN)) continue
      if (!contextExists(n, spec.scheme)) continue
      const row: OpTableRow = {
        n,
        logQ: spec.scheme === 'bgv-search' ? SEARCH_LOG_Q : logQOf(n),
        spec,
        cells: {},
        missing: {},
        published: published.get(publishedKey(n, id)),
      }
      for (const engine of report.engines) {
        const cell = engine.result?.cells.find((c) => c.n === n && c.group === spec.group && c.op === spec.op)
        if (cell) row.cells[engine.id] = cell
        const skipped = engine.result?.skipped.find((s) => s.n === n && s.group === spec.group && s.op === spec.op)
        if (skipped) row.missing[engine.id] = skipped.reason
      }
      rows.push(row)
    }
  }
  return rows
}

function logQOf(n: number): number {
  return (DEFAULT_COEFF_BITS[n] ?? []).reduce((sum, bits) => sum + bits, 0)
}

/** Which statistic of a cell a ratio uses. */
export type CellStatistic = 'medianUs' | 'minUs'

/** Engine `a` over engine `b` for a row (medians by default), when both have a cell. */
export function cellRatio(
  row: OpTableRow,
  a: EngineId,
  b: EngineId,
  pick: CellStatistic = 'medianUs',
): number | undefined {
  const x = row.cells[a]?.[pick]
  const y = row.cells[b]?.[pick]
  return x !== undefined && y !== undefined && y > 0 ? x / y : undefined
}
