import type { SearchMeasurement } from './measureSearch.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'
import { KERNEL_NAMES, kb, kib, ms, side, table } from './searchReportFormat.ts'
import type { NativeFigure, SearchTarget } from './searchTargets.ts'

/** The best (lowest median total) measurement of an engine, or undefined. */
export function bestOf(list: readonly SearchMeasurement[], engine: 'wasm' | 'native'): SearchMeasurement | undefined {
  return list
    .filter((m) => m.engine === engine && m.exact)
    .sort((a, b) => a.total.median - b.total.median || a.total.min - b.total.min)[0]
}

/** WASM over native: total (min and median) and CPU per query; < 1 means WASM spends less. */
export function engineRatio(wasm: SearchMeasurement, native: SearchMeasurement) {
  return {
    totalMin: wasm.total.min / native.total.min,
    totalMedian: wasm.total.median / native.total.median,
    cpu: wasm.cpuMean / native.cpuMean,
  }
}

function mode(m: SearchMeasurement): string {
  const c = m.config
  return `${c.scheme.toUpperCase()} ${side(c)} g=${c.babyStep}; query ${m.querySeeded ? '' : 'unseeded '}${m.queryCompression}, response ${m.responseCompression}; ${KERNEL_NAMES[m.kernel]}`
}

function comparisonTable(list: readonly SearchMeasurement[]): string {
  return table(
    [
      'engine',
      'config',
      'up (query)',
      'down (response)',
      'keys (once)',
      'decode',
      'load',
      'compute',
      'save',
      '**server total** min / median',
      '**CPU per query** (mean)',
      'exact',
    ],
    list.map((m) => [
      m.engine === 'native' ? '**native SEAL**' : 'WASM (node-seal)',
      `${m.label}: ${mode(m)}`,
      kib(m.queryBytes),
      kib(m.responseBytes),
      kib(m.keyBytes),
      ms(m.phases.decode.median),
      ms(m.phases.load.median),
      ms(m.phases.compute.median),
      ms(m.phases.save.median),
      `**${ms(m.total.min)} / ${ms(m.total.median)}**`,
      `**${ms(m.cpuMean)}**`,
      m.exact ? 'yes' : '**NO**',
    ]),
  )
}

/** The headline configs and the best of each engine, with the best WASM over the best native. */
export function headlineComparison(report: SearchBenchReport): string[] {
  const all = [...report.headlineRows, ...report.tradeOff, ...report.candidates]
  const wasm = bestOf(all, 'wasm')
  const native = bestOf(all, 'native')
  const rows = [...report.headlineRows]
  for (const best of [wasm, native]) if (best && !rows.includes(best)) rows.push(best)
  const out = [
    'Server total = envelope decode + SEAL load + compute + save, wall clock per query (phase columns are medians). CPU = the thread CPU time of the evaluate (getrusage RUSAGE_THREAD on both sides; mean). Both engines run the same algorithm on the same database with the same key set and query vectors; the native side reads the very query bundles node-seal made (its minimal framing read: one CRC-32 over the bundle, the item headers) and answers a response bundle that he-core decrypts and checks against the plaintext oracle (column exact). The seal-python wheel is built without zstd, so native reads uncompressed seeded queries and writes uncompressed responses.',
    '',
    comparisonTable(rows),
  ]
  if (wasm && native) {
    const r = engineRatio(wasm, native)
    out.push(
      '',
      `**Best WASM (${wasm.label}, ${mode(wasm)}) over best native (${native.label}, ${mode(native)}): server total ${r.totalMedian.toFixed(2)}× at the median, ${r.totalMin.toFixed(2)}× at the minimum; CPU per query ${r.cpu.toFixed(2)}×** (below 1: WASM spends less). Load average during the run: ${report.machine.loadAverage.join(' / ')}.`,
    )
  }
  return out
}

/** The shape of Apple's PNNS example: Apple's published row, then ours. */
export function appleTable(list: readonly SearchMeasurement[]): string {
  const rows: string[][] = [
    [
      'Apple (published; hardware not stated)',
      'server-side, 2 keys',
      '170.2 KB',
      '28.2 KB',
      '52.1 KB',
      '10.4–12.5 ms',
      '',
    ],
  ]
  for (const m of list) {
    const c = m.config
    rows.push([
      m.engine === 'native'
        ? '**native SEAL**'
        : `WASM (${m.kernel === 'seal' ? "SEAL's evaluator" : `${m.kernel} kernel`})`,
      `${side(c)} g=${c.babyStep}, ${c.galoisSteps.length} key${c.galoisSteps.length === 1 ? '' : 's'}; query ${m.queryCompression}`,
      kb(m.keyBytes),
      kb(m.queryBytes),
      kb(m.responseBytes),
      `${ms(m.total.min)} / ${ms(m.total.median)} (compute ${ms(m.compute.median)})`,
      m.exact ? 'yes' : '**NO**',
    ])
  }
  return table(['who', 'baby steps', 'evaluation keys', 'query', 'response', 'server ms (min / median)', 'exact'], rows)
}

/** Native's figure and the config it came from. */
function figure(f: NativeFigure): string {
  return `${ms(f.ms)} (${f.mode})`
}

/**
 * Each shape's default config (and the key-switching kernel's best one-ciphertext rows) over
 * native SEAL's best of every native row of that shape in the same run, taken separately for
 * the minimum, the median and the CPU time, each naming the native config it came from.
 */
export function targetTable(targets: readonly SearchTarget[]): string {
  if (targets.length === 0) return 'Not measured (no native rows: `--no-native`, or the venv could not be made).'
  return table(
    [
      'shape',
      'WASM config',
      'WASM total min / median, CPU (ms)',
      "native's best total, min",
      "native's best total, median",
      "native's best CPU",
      "**WASM ÷ native's best** (min / median / CPU)",
      "÷ native's best with one query ciphertext (min)",
      'exact',
    ],
    targets.map((t) => [
      t.shape,
      `${t.what}: ${t.wasm.mode}`,
      `${ms(t.wasm.totalMin)} / ${ms(t.wasm.totalMedian)}, ${ms(t.wasm.cpu)}`,
      figure(t.native.totalMin),
      figure(t.native.totalMedian),
      figure(t.native.cpu),
      `**${t.ratio.totalMin.toFixed(2)}×** / ${t.ratio.totalMedian.toFixed(2)}× / ${t.ratio.cpu.toFixed(2)}×`,
      t.oneCiphertextMin === undefined ? '—' : `${t.oneCiphertextMin.toFixed(2)}×`,
      t.wasm.exact ? 'yes' : '**NO**',
    ]),
  )
}
