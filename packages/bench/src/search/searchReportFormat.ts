import { formatMs } from '../core/formatNumbers.ts'
import { markdownTable } from '../core/markdownTable.ts'
import type { SearchMeasurement } from './measureSearch.ts'

// How the search report writes its numbers, configs and tables.

export const ms = formatMs
export const kib = (bytes: number) => (bytes === 0 ? '0' : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KiB`)
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
export const pct = (value: number) => `${(value * 100).toFixed(1)} %`
/** Kilobytes of 1000 bytes, as Apple's figures are. */
export const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

/** How the report names each search path (index.kernel). */
export const KERNEL_NAMES = {
  dyadic: 'sums in the WebAssembly kernel',
  keySwitch: 'rotations and sums in the WebAssembly key-switching kernel',
  seal: "SEAL's evaluator",
} as const

/** A report table: the first column names the row, the others are numbers (right-aligned). */
export function table(head: string[], rows: string[][]): string {
  return markdownTable(
    head.map((heading, i) => ({ heading, align: i === 0 ? ('left' as const) : ('right' as const) })),
    rows,
  )
}

/** Who rotates the query, and whether the server's rotations are hoisted. */
export function side(c: SearchMeasurement['config']): string {
  return `${c.babySteps}-side${c.hoistBabySteps ? ' hoisted' : ''}`
}

/** A config in one line: scheme, n, coefficient modulus, baby steps and database form. */
export function describeConfig(m: SearchMeasurement): string {
  const c = m.config
  return `${c.scheme.toUpperCase()} n=${c.polyModulusDegree} [${c.coeffModulusBits.join(',')}], ${side(c)} g=${c.babyStep}, ${c.nttForm ? 'NTT' : 'coefficient'} form`
}
