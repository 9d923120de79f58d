import type { SealOpCalibration } from './calibrateSealOps.ts'
import { formatMs } from './formatMs.ts'
import type { BatchMeasurement } from './measureBatch.ts'
import type { LoadSplit } from './measureLoadSplit.ts'
import type { RotationCosts } from './measureRotations.ts'
import type { SearchMeasurement } from './measureSearch.ts'
import type { ThroughputReport } from './measureServerThroughput.ts'
import { renderThroughputSection } from './renderThroughputSection.ts'
import type { ThreadedMeasurement } from './threadedSearch.ts'

/** Everything one `benchmark:search` run produced. */
export interface SearchBenchReport {
  command: string
  date: string
  machine: { cpuModel: string; cores: number; node: string; os: string; loadAverage: number[] }
  samples: { warmup: number; samples: number }
  /** Versions of the native side, when the native twins ran. */
  native: Record<string, string> | undefined
  headline: SearchMeasurement
  /** The headline configs, WASM and their native twins. */
  headlineRows: SearchMeasurement[]
  /** Where one default query's load (and save) time goes, by query compression. */
  loadSplit: LoadSplit[]
  /** The shape of Apple's PNNS example, both baby-step modes, WASM and native. */
  apple: SearchMeasurement[]
  /** Single rotations: he-core's key-switching kernel, SEAL in WebAssembly, native SEAL. */
  rotations?: RotationCosts
  schemes: SearchMeasurement[]
  tradeOff: SearchMeasurement[]
  forms: SearchMeasurement[]
  large: SearchMeasurement | undefined
  threads: ThreadedMeasurement[]
  batch: BatchMeasurement | undefined
  /** Single operations timed at the start and at the end of the run. */
  calibration: SealOpCalibration[]
  /** The default config through real server processes (absent: not measured). */
  throughput?: ThroughputReport
}

const ms = formatMs
const kib = (bytes: number) => (bytes === 0 ? '0' : `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KiB`)
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
const pct = (value: number) => `${(value * 100).toFixed(1)} %`

/** How the report names each search path (index.kernel). */
const KERNEL_NAMES = {
  dyadic: 'sums in the WebAssembly kernel',
  keySwitch: 'rotations and sums in the WebAssembly key-switching kernel',
  seal: "SEAL's evaluator",
} as const

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map(line)].join('\n')
}

/** Who rotates the query, and whether the server's rotations are hoisted. */
function side(c: SearchMeasurement['config']): string {
  return `${c.babySteps}-side${c.hoistBabySteps ? ' hoisted' : ''}`
}

function describe(m: SearchMeasurement): string {
  const c = m.config
  return `${c.scheme.toUpperCase()} n=${c.polyModulusDegree} [${c.coeffModulusBits.join(',')}], ${side(c)} g=${c.babyStep}, ${c.nttForm ? 'NTT' : 'coefficient'} form`
}

function headline(m: SearchMeasurement): string {
  const c = m.config
  const rows: string[][] = [
    ['config', `${describe(m)}; V=${c.rows}, D=${c.dimension}, s=${c.scale}, ${c.blocks} blocks`],
    [
      'server compute per query (wall clock), min / median',
      `**${ms(m.compute.min)} ms** / ${ms(m.compute.median)} ms (${m.compute.samples} queries)`,
    ],
    [
      'server total per query (envelope decode + SEAL load + compute + save; wall clock), min / median',
      `${ms(m.total.min)} ms / ${ms(m.total.median)} ms (medians: decode ${ms(m.decodeMs)}, load ${ms(m.loadMs)}, save ${ms(m.saveMs)})`,
    ],
    ['server CPU time per query (mean; excludes waiting for a core)', `${ms(m.cpuMean)} ms`],
    [
      'operations per query',
      `${c.operations.multiplies} multiplies, ${c.operations.babyRotations + c.operations.giantRotations} rotations, ${c.operations.queryCiphertexts} query ciphertexts, ${c.operations.responseCiphertexts} mod switches`,
    ],
    ['query bytes (seeded, zstd)', `${m.queryBytes.toLocaleString('en')} (${kib(m.queryBytes)})`],
    [
      'key bytes (Galois keys, seeded, zstd)',
      m.keyBytes === 0 ? '0 — no evaluation keys at all' : `${m.keyBytes.toLocaleString('en')} (${kib(m.keyBytes)})`,
    ],
    ['response bytes (last level, zstd)', `${m.responseBytes.toLocaleString('en')} (${kib(m.responseBytes)})`],
    ['database processing', `${ms(m.processMs)} ms → ${mib(m.processedBytes)} of NTT-form plaintexts`],
    ['noise budget left in the responses', `${m.minNoiseBudget} bits; scores exact: ${m.exact ? 'yes' : '**NO**'}`],
    ['client: encrypt query / decrypt + rank', `${ms(m.clientEncryptMs)} ms / ${ms(m.clientDecryptMs)} ms`],
  ]
  if (m.jsShare) {
    rows.push([
      'JavaScript outside SEAL calls',
      `${pct(m.jsShare.compute)} of compute; ${pct(m.jsShare.total)} of the whole evaluate (envelope checks alone ${pct(m.jsShare.decode)})`,
    ])
  }
  return table(['', 'value'], rows)
}

function tradeOff(list: SearchMeasurement[]): string {
  return table(
    [
      'engine',
      'runs in',
      'scheme',
      'baby steps',
      'g',
      'database form',
      'query cts',
      'upload',
      'Galois steps',
      'key bytes',
      'rotations',
      'multiplies',
      'compute ms (min / median)',
      'total ms (min / median)',
      'CPU ms per query (mean)',
      'response',
      'model ms',
    ],
    list.map((m) => {
      const c = m.config
      return [
        m.engine === 'native' ? '**native**' : 'WASM',
        m.engine === 'native' ? 'SEAL' : m.kernel,
        c.scheme.toUpperCase(),
        side(c),
        String(c.babyStep),
        c.nttForm ? 'NTT' : 'coefficient',
        String(c.queryCiphertexts),
        kib(m.queryBytes),
        c.galoisSteps.length ? c.galoisSteps.join(', ') : 'none',
        kib(m.keyBytes),
        String(c.operations.babyRotations + c.operations.giantRotations),
        String(c.operations.multiplies),
        `${ms(m.compute.min)} / ${ms(m.compute.median)}`,
        `${ms(m.total.min)} / ${ms(m.total.median)}`,
        ms(m.cpuMean),
        kib(m.responseBytes),
        ms(c.estimatedServerMs),
      ]
    }),
  )
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

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

function headlineComparison(report: SearchBenchReport): string[] {
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

function loadSplitTable(list: readonly LoadSplit[]): string {
  const cell = (s: { min: number; median: number }) => `${ms(s.min)} / ${ms(s.median)}`
  return table(
    [
      'query compression',
      'query bytes',
      'decodeBundle (all checks)',
      'CRC-32 of the bundle',
      'CRC-32 of every item again',
      'inflate + pre-parse (JS)',
      'SEAL load, seeded (seed expansion)',
      'SEAL load, same cts unseeded (copy + parse)',
      'whole load phase',
      'save one response ct',
      'response ct bytes',
    ],
    list.map((l) => [
      l.compression,
      kib(l.queryBytes),
      cell(l.decodeBundle),
      cell(l.bundleChecksum),
      cell(l.itemChecksums),
      cell(l.inflateAndCheck),
      cell(l.sealLoadSeeded),
      cell(l.sealLoadUnseeded),
      cell(l.loadPhase),
      cell(l.saveOne),
      kib(l.saveOneBytes),
    ]),
  )
}

function appleTable(list: readonly SearchMeasurement[]): string {
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
function kernelTargets(report: SearchBenchReport): string {
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

function rotationTable(costs: RotationCosts): string {
  const cell = (s: { min: number; median: number } | undefined) => (s ? `${ms(s.min)} / ${ms(s.median)}` : '—')
  return table(
    ['rotation (n = 4096 [27, 28, 28], BGV, one step)', 'ms (min / median)', 'vs native (median)'],
    [
      [
        "he-core's key-switching kernel, single",
        cell(costs.kernel),
        costs.native ? `${(costs.kernel.median / costs.native.median).toFixed(2)}×` : '—',
      ],
      [
        `he-core's key-switching kernel, hoisted (${costs.hoistedBatch} rotations of one ciphertext sharing one decomposition, its ${ms(costs.decomposition.median)} ms median spread over them)`,
        cell(costs.hoisted),
        costs.native ? `${(costs.hoisted.median / costs.native.median).toFixed(2)}×` : '—',
      ],
      [
        "SEAL's evaluator in WebAssembly (node-seal)",
        cell(costs.sealWasm),
        costs.native ? `${(costs.sealWasm.median / costs.native.median).toFixed(2)}×` : '—',
      ],
      ['native SEAL 4.1', cell(costs.native), costs.native ? '1.00×' : '—'],
    ],
  )
}

/** The report as Markdown. */
export function renderSearchReport(report: SearchBenchReport): string {
  const parts = [
    '# Private search benchmark',
    '',
    `Command: \`${report.command}\`  `,
    `Date: ${report.date}; ${report.machine.cpuModel}, ${report.machine.cores} logical cores, Node ${report.machine.node}, ${report.machine.os}; load average ${report.machine.loadAverage.join(' / ')}.  `,
    `Timings: ${report.samples.samples} queries after ${report.samples.warmup} warm-up queries on one thread, node-seal 7 (SEAL 4.1 in WebAssembly), server side only (no network, no client), wall clock. The machine is shared: the minimum is the closest to an idle core, the median includes waiting for a core at this run's load, and the mean thread CPU time is what a query costs a core.`,
    '',
    ...(report.native
      ? [
          `Native: ${Object.entries(report.native)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}.`,
          '',
        ]
      : []),
    '## Single operations during this run',
    '',
    'Timed at the start and at the end of the run (wall clock, min / median of 100). They show how busy the shared machine was; the query times in units of one NTT-form multiply do not depend on it.',
    '',
    table(
      [
        'scheme',
        'when',
        'multiply (NTT form)',
        'rotateRows',
        'mod switch to last level',
        'load seeded zstd ciphertext',
      ],
      report.calibration.map((c, i) => [
        c.scheme.toUpperCase(),
        i < report.calibration.length / 2 ? 'start' : 'end',
        `${ms(c.multiplyPlainNtt.min)} / ${ms(c.multiplyPlainNtt.median)}`,
        `${ms(c.rotateRows.min)} / ${ms(c.rotateRows.median)}`,
        `${ms(c.modSwitch.min)} / ${ms(c.modSwitch.median)}`,
        `${ms(c.loadSeeded.min)} / ${ms(c.loadSeeded.median)}`,
      ]),
    ),
    '',
    '## Headline: what the server spends per query, WASM vs native SEAL (same run, interleaved)',
    '',
    ...headlineComparison(report),
    '',
    '## One query ciphertext: rotations in the key-switching kernel vs native SEAL',
    '',
    `Server-side baby steps (one ciphertext up), uncompressed queries so both engines load the same bytes; native's best over the g it ran. Load average during the run: ${report.machine.loadAverage.join(' / ')}.`,
    '',
    kernelTargets(report),
    ...(report.rotations
      ? [
          '',
          'Per rotation, timed alone in this run (the kernel and SEAL interleaved sample by sample; native in its own process):',
          '',
          rotationTable(report.rotations),
        ]
      : []),
    '',
    '## Where the load time goes',
    '',
    `One default query (${report.loadSplit[0]?.queryCiphertexts ?? '?'} seeded ciphertexts), each part timed alone over all its ciphertexts (ms, min / median of ${report.samples.samples}). Seed expansion is SEAL's PRNG regenerating the random half of every ciphertext; it is the floor of any seeded load. The CRC-32 of every item repeats the bundle's, which already covers them.`,
    '',
    loadSplitTable(report.loadSplit),
    '',
    '## The default config in detail',
    '',
    headline(report.headline),
    '',
    "## Schemes (same parameters, client-side g = D')",
    '',
    tradeOff(report.schemes),
  ]
  if (report.tradeOff.length) {
    parts.push(
      '',
      '## Trade-off over the baby step g',
      '',
      "Client-side baby steps: the client encrypts the g rotations of q (g ciphertexts up); the server skips the g−1 baby rotations. Server-side: one ciphertext up, g−1 baby rotations by 1 and ceil(D'/g)−1 giant rotations by g per block. Key bytes are the Galois keys for exactly the steps used, uploaded once per key set: a seeded zstd envelope for WASM, the same keys saved expanded and uncompressed for native (the wheel reads no zstd). Queries and responses are uncompressed in this table, so both engines load and save the same bytes; each native row is the twin of the WASM row above it.",
      '',
      tradeOff(report.tradeOff),
    )
  }
  if (report.apple.length) {
    parts.push(
      '',
      "## A row comparable with Apple's PNNS example",
      '',
      "Apple's swift-homomorphic-encryption documents, for V = 4096 rows, D = 128, cosine, n = 4096, coefficient modulus [27, 28, 28]: 170.2 KB of evaluation keys (2 keys), a 28.2 KB query, a 52.1 KB response and 10.4–12.5 ms on unstated hardware. The same shape here (synthetic unit vectors), both baby-step modes, WASM (zstd queries and responses, our default) and native (uncompressed: the wheel has no zstd). KB = 1000 bytes, as Apple's.",
      '',
      appleTable(report.apple),
    )
  }
  if (report.forms.length) {
    parts.push('', '## Database in NTT form vs coefficient form', '', tradeOff(report.forms))
  }
  if (report.large) {
    parts.push('', `## V = ${report.large.config.rows.toLocaleString('en')}`, '', headline(report.large))
  }
  if (report.threads.length) {
    parts.push(
      '',
      "## Splitting one query's blocks across worker threads",
      '',
      'Each worker thread holds its share of the processed blocks; the query is posted to all and the parts are merged by the client. One thread is the same set-up with one worker (same messaging).',
      '',
      table(
        [
          'V',
          'blocks',
          'threads',
          'blocks per thread',
          'latency ms (min / median)',
          'slowest worker compute ms (min / median)',
          'exact',
        ],
        report.threads.map((t) => [
          t.rows.toLocaleString('en'),
          String(t.blocks),
          String(t.threads),
          t.split.join(' + '),
          `${ms(t.latency.min)} / ${ms(t.latency.median)}`,
          `${ms(t.slowestCompute.min)} / ${ms(t.slowestCompute.median)}`,
          t.exact ? 'yes' : '**NO**',
        ]),
      ),
    )
  }
  if (report.batch) {
    const b = report.batch
    parts.push(
      '',
      '## Batching',
      '',
      `${b.users} users (${b.users} key sets), one query each, in one \`evaluateBatch\` call: ${ms(b.batch.median)} ms per call (median of ${b.rounds}), ${ms(b.perQuery.median)} ms per query (min ${ms(b.perQuery.min)}); all ok: ${b.allOk ? 'yes' : 'no'}.`,
    )
  }
  if (report.throughput) parts.push('', renderThroughputSection(report.throughput).trimEnd())
  return `${parts.join('\n')}\n`
}
