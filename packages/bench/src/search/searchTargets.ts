import type { SearchMeasurement } from './measureSearch.ts'
import { side } from './searchReportFormat.ts'

/** One native configuration's figure: which config it was and the value (ms). */
export interface NativeFigure {
  label: string
  /** The config in a few words: side, g, query ciphertexts, seeded or not, encoding. */
  mode: string
  ms: number
}

/** Native SEAL's best at one shape, figure by figure: each may come from another config. */
export interface NativeBest {
  /** Native rows this best was taken over (exact ones only). */
  configs: number
  totalMin: NativeFigure
  totalMedian: NativeFigure
  cpu: NativeFigure
}

/** A WASM config over native's best at the same shape, in the same run. */
export interface SearchTarget {
  shape: string
  what: string
  wasm: { label: string; mode: string; totalMin: number; totalMedian: number; cpu: number; exact: boolean }
  native: NativeBest
  /** WASM ÷ native's best: server total at the minimum and at the median, CPU per query (below 1: WASM spends less). */
  ratio: { totalMin: number; totalMedian: number; cpu: number }
  /** WASM ÷ native's best with one query ciphertext (server-side baby steps), at the minimum; undefined without such a native row. */
  oneCiphertextMin: number | undefined
}

/** A measured config in a few words (for naming native's best). */
export function searchMode(m: SearchMeasurement): string {
  const c = m.config
  const scheme = c.scheme === 'bgv' ? '' : `${c.scheme.toUpperCase()} `
  const up = `${c.queryCiphertexts} ciphertext${c.queryCiphertexts === 1 ? '' : 's'} up`
  return `${scheme}${side(c)} g=${c.babyStep} (${up}), ${m.querySeeded ? 'seeded' : 'unseeded'} ${m.queryCompression}`
}

/** The lowest server total (minimum, median) and CPU among the exact native rows of `list`, each with its config. */
export function nativeBest(list: readonly SearchMeasurement[]): NativeBest | undefined {
  const natives = list.filter((m) => m.engine === 'native' && m.exact)
  if (natives.length === 0) return undefined
  const lowest = (value: (m: SearchMeasurement) => number): NativeFigure => {
    const best = natives.reduce((a, b) => (value(b) < value(a) ? b : a))
    return { label: best.label, mode: searchMode(best), ms: value(best) }
  }
  return {
    configs: natives.length,
    totalMin: lowest((m) => m.total.min),
    totalMedian: lowest((m) => m.total.median),
    cpu: lowest((m) => m.cpuMean),
  }
}

/**
 * `wasm` over native's best among every native row of `rows` (one shape, one run), figure by
 * figure; undefined when either side is missing.
 */
export function searchTarget(
  shape: string,
  what: string,
  wasm: SearchMeasurement | undefined,
  rows: readonly SearchMeasurement[],
): SearchTarget | undefined {
  const native = nativeBest(rows)
  if (!wasm || !native) return undefined
  const oneCiphertext = nativeBest(rows.filter((m) => m.config.queryCiphertexts === 1))
  return {
    shape,
    what,
    wasm: {
      label: wasm.label,
      mode: searchMode(wasm),
      totalMin: wasm.total.min,
      totalMedian: wasm.total.median,
      cpu: wasm.cpuMean,
      exact: wasm.exact,
    },
    native,
    ratio: {
      totalMin: wasm.total.min / native.totalMin.ms,
      totalMedian: wasm.total.median / native.totalMedian.ms,
      cpu: wasm.cpuMean / native.cpu.ms,
    },
    oneCiphertextMin: oneCiphertext ? wasm.total.min / oneCiphertext.totalMin.ms : undefined,
  }
}

/** The fastest (by minimum) WASM row of `list` whose rotations run in he-core's key-switching kernel, hoisted or not, with one query ciphertext. */
export function bestKernelRow(list: readonly SearchMeasurement[], hoisted: boolean): SearchMeasurement | undefined {
  return list
    .filter(
      (m) =>
        m.engine === 'wasm' &&
        m.kernel === 'keySwitch' &&
        m.exact &&
        m.config.queryCiphertexts === 1 &&
        (m.config.hoistBabySteps ?? false) === hoisted,
    )
    .sort((a, b) => a.total.min - b.total.min)[0]
}

/**
 * The targets of one run: at Apple's shape and at the main shape, the default config, then
 * the kernel's best one-ciphertext rows (single rotations, hoisted), each over native's best
 * among all native rows of that shape (every baby-step side, g and query form it ran).
 */
export function searchTargets(
  shapes: readonly { shape: string; wasmDefault: SearchMeasurement | undefined; rows: readonly SearchMeasurement[] }[],
): SearchTarget[] {
  const targets: (SearchTarget | undefined)[] = []
  for (const { shape, wasmDefault, rows } of shapes) {
    targets.push(
      searchTarget(shape, 'default config', wasmDefault, rows),
      searchTarget(shape, 'key-switching kernel, single rotations, best g', bestKernelRow(rows, false), rows),
      searchTarget(shape, 'key-switching kernel, hoisted baby steps, best g', bestKernelRow(rows, true), rows),
    )
  }
  return targets.filter((t): t is SearchTarget => t !== undefined)
}
