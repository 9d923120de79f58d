import { readFileSync } from 'node:fs'

/** One row of node-seal's published table (µs per op; empty where a column has no figure). */
export interface PublishedRow {
  n: number
  logQ: number
  group: string
  op: string
  /** Columns as published: native (SEAL without HEXL), node, chrome, safari, firefox. */
  values: Record<PublishedColumn, number | undefined>
}

export const PUBLISHED_COLUMNS = ['native_no_hexl', 'node', 'chrome', 'safari', 'firefox'] as const
export type PublishedColumn = (typeof PUBLISHED_COLUMNS)[number]

/** Headings for the published columns in our reports. */
export const PUBLISHED_LABELS: Record<PublishedColumn, string> = {
  native_no_hexl: 'Native',
  node: 'Node',
  chrome: 'Chrome',
  safari: 'Safari',
  firefox: 'Firefox',
}

/** Where the figures come from, for the reports' footnote. */
export const PUBLISHED_SOURCE =
  "node-seal's README benchmark table (SEAL 4.1.2, node-seal v5.1.5, Node 22.13.1, Chrome 134, Firefox 136, Safari 18.3.1, M1 Pro; 10 iterations, no warm-up; browser columns quantised by coarse timers)"

const CSV = new URL('../../data/node-seal-published-timings.csv', import.meta.url)

/** The published rows, keyed `${n}|${group}/${op}`. */
export function loadPublishedTimings(): Map<string, PublishedRow> {
  const [header, ...lines] = readFileSync(CSV, 'utf8').trim().split('\n')
  const names = header?.split(',') ?? []
  const rows = new Map<string, PublishedRow>()
  for (const line of lines) {
    const cells = line.split(',')
    const field = (name: string) => cells[names.indexOf(name)] ?? ''
    const number = (name: string) => (field(name) === '' ? undefined : Number(field(name)))
    const row: PublishedRow = {
      n: Number(field('n')),
      logQ: Number(field('log_q')),
      group: field('group'),
      op: field('operation'),
      values: Object.fromEntries(PUBLISHED_COLUMNS.map((column) => [column, number(column)])) as PublishedRow['values'],
    }
    rows.set(publishedKey(row.n, `${row.group}/${row.op}`), row)
  }
  return rows
}

/** The key of a row: n and op id. */
export function publishedKey(n: number, opId: string): string {
  return `${n}|${opId}`
}
