import type { MillionRowsCase, MillionRowsResult, MillionRowsSource } from './measureMillionRows.ts'

/** The report's order of cases; within a case, the largest V first. */
const CASE_ORDER: readonly MillionRowsCase['name'][] = ['exact', 'cluster-private']

/**
 * A report's rows after a run: this run's results, and every row of an earlier report
 * (`kept`) for a case and V this run did not measure, each with the source that measured
 * it — so one engineer's exact rows and another's cluster-private row live in one file.
 */
export function mergeMillionRows(
  kept: readonly MillionRowsResult[],
  measured: readonly MillionRowsResult[],
  keptSource: MillionRowsSource | undefined,
): MillionRowsResult[] {
  const key = (r: MillionRowsResult) => `${r.name}@${r.rows}`
  const fresh = new Set(measured.map(key))
  const old = kept
    .filter((r) => !fresh.has(key(r)))
    .map((r) => (r.source || !keptSource ? r : { ...r, source: keptSource }))
  return [...old, ...measured].sort(
    (a, b) => CASE_ORDER.indexOf(a.name) - CASE_ORDER.indexOf(b.name) || b.rows - a.rows,
  )
}
