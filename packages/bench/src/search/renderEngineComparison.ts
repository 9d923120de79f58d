import type { SearchMeasurement } from './measureSearch.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'
import { KERNEL_NAMES, kb, kib, ms, side, table } from './searchReportFormat.ts'

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
  const all = [...report.headlineRows, ...report.tradeOff]
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

/** The WASM server total over native's best (by minimum) among `natives`, with the run's figures. */
function targetRow(label: string, wasm: SearchMeasurement | undefined, natives: SearchMeasurement[]): string[] {
  const native = [...natives].sort((a, b) => a.total.min - b.total.min)[0]
  if (!wasm || !native) return [label, 'not measured', '', '', '']
  return [
    label,
    `${wasm.label}: ${ms(wasm.total.min)} / ${ms(wasm.total.median)}`,
    `${native.label}: ${ms(native.total.min)} / ${ms(native.total.median)}`,
    `**${(wasm.total.min / native.total.min).toFixed(2)}×** / ${(wasm.total.median / native.total.median).toFixed(2)}×`,
    wasm.exact && native.exact ? 'yes' : '**NO**',
  ]
}

/** One query ciphertext (server-side baby steps): the kernel's best against native's best, Apple's shape and the default shape. */
export function kernelTargets(report: SearchBenchReport): string {
  const oneCiphertext = (m: SearchMeasurement) => m.config.babySteps === 'server'
  const best = (list: SearchMeasurement[]) => [...list].sort((a, b) => a.total.min - b.total.min)[0]
  const apple = report.apple.filter(oneCiphertext)
  const shape = [...report.headlineRows, ...report.tradeOff].filter(
    (m) => oneCiphertext(m) && m.config.scheme === 'bgv' && m.queryCompression === 'none',
  )
  const wasm = (list: SearchMeasurement[], hoisted: boolean) =>
    best(
      list.filter((m) => m.engine === 'wasm' && m.kernel !== 'seal' && (m.config.hoistBabySteps ?? false) === hoisted),
    )
  const native = (list: SearchMeasurement[]) => list.filter((m) => m.engine === 'native')
  const main = `V = ${report.headline.config.rows.toLocaleString('en')}, D = ${report.headline.config.dimension}`
  return table(
    [
      'shape (one query ciphertext, uncompressed)',
      'WASM kernel, best (min / median ms)',
      'native SEAL, best',
      'WASM ÷ native (min / median)',
      'exact',
    ],
    [
      targetRow(`V = 4096, D = 128 (Apple's shape), single rotations`, wasm(apple, false), native(apple)),
      targetRow(`V = 4096, D = 128 (Apple's shape), hoisted baby steps`, wasm(apple, true), native(apple)),
      targetRow(`${main}, single rotations`, wasm(shape, false), native(shape)),
      targetRow(`${main}, hoisted baby steps`, wasm(shape, true), native(shape)),
    ],
  )
}
