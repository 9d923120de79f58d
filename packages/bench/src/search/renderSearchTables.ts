import type { LoadSplit } from './measureLoadSplit.ts'
import type { RotationCosts } from './measureRotations.ts'
import type { SearchMeasurement } from './measureSearch.ts'
import { describeConfig, kib, mib, ms, pct, side, table } from './searchReportFormat.ts'

/** One config in detail: timings, operations, bytes, noise and the client's side. */
export function headlineTable(m: SearchMeasurement): string {
  const c = m.config
  const rows: string[][] = [
    ['config', `${describeConfig(m)}; V=${c.rows}, D=${c.dimension}, s=${c.scale}, ${c.blocks} blocks`],
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
    [
      `query bytes (${m.querySeeded ? 'seeded' : 'unseeded'}, ${m.queryCompression})`,
      `${m.queryBytes.toLocaleString('en')} (${kib(m.queryBytes)})`,
    ],
    [
      'key bytes (Galois keys as the client uploads them: seeded, packed)',
      m.keyBytes === 0 ? '0 — no evaluation keys at all' : `${m.keyBytes.toLocaleString('en')} (${kib(m.keyBytes)})`,
    ],
    [
      `response bytes (last level, ${m.responseCompression})`,
      `${m.responseBytes.toLocaleString('en')} (${kib(m.responseBytes)})`,
    ],
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

/** Configs side by side: engine, kernel, baby steps, bytes, operations and timings. */
export function tradeOffTable(list: SearchMeasurement[]): string {
  return table(
    [
      'engine',
      'runs in',
      'scheme',
      'baby steps',
      'g',
      'database form',
      'query cts',
      'query',
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
        `${m.querySeeded ? 'seeded' : 'unseeded'} ${m.queryCompression}`,
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

/** Where one default query's load (and save) time goes, by query compression. */
export function loadSplitTable(list: readonly LoadSplit[]): string {
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

/** Single rotations: the key-switching kernel (single and hoisted), SEAL in WebAssembly and native SEAL. */
export function rotationTable(costs: RotationCosts): string {
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
