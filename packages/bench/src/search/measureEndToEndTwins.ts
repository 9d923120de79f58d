import { resolveSearchConfig, syntheticSearchDatabase } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import type { Spread } from '../core/stats.ts'
import type { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import type { EndToEndCase } from './endToEndCases.ts'
import { prepareNativeTwins, processedPlaintextBytesOf } from './measureNativeSearch.ts'
import { prepareSearchCase, prepareSearchFixture, type SearchCase } from './measureSearch.ts'
import { type NativeCandidate, nativeCandidates } from './nativeCandidates.ts'
import { type NativeBest, nativeBest, searchMode } from './searchTargets.ts'

/**
 * Native SEAL keeps every candidate's processed database at once (they are sampled
 * round-robin): at most this many bytes of plaintexts across candidates, the served
 * config's baby steps and client-side g = 16 first. Larger shapes try fewer configs, and
 * the row names those left out.
 */
export const NATIVE_TWIN_BUDGET_BYTES = 2 * 2 ** 30

/** One engine's server side of an end-to-end shape, measured in this process (no HTTP). */
export interface TwinSide {
  /** The config in a few words (side, g, query ciphertexts, query form). */
  mode: string
  total: Spread
  cpuMean: number
  exact: boolean
  queryBytes: number
  responseBytes: number
  keyBytes: number
}

/** The server side of one end-to-end shape: the WASM default and native SEAL's candidates, same data and run. */
export interface EndToEndTwinRow {
  title: string
  rows: number
  dimension: number
  config: {
    babySteps: string
    babyStep: number
    galoisSteps: number[]
    polyModulusDegree: number
    coeffModulusBits: number[]
  }
  wasm: TwinSide
  /** Every native candidate measured, round-robin with the WASM side. */
  natives: TwinSide[]
  /** Native's best among them, figure by figure (null: none measured exactly). */
  nativeBest: NativeBest | null
  /** Candidates left out to keep native's processed databases within NATIVE_TWIN_BUDGET_BYTES. */
  notTried: string[]
  /** Why native SEAL did not run, when it did not. */
  nativeError?: string
}

function sideOf(result: ReturnType<SearchCase['result']>): TwinSide {
  return {
    mode: searchMode(result),
    total: result.total,
    cpuMean: result.cpuMean,
    exact: result.exact,
    queryBytes: result.queryBytes,
    responseBytes: result.responseBytes,
    keyBytes: result.keyBytes,
  }
}

/** Native's candidates at a shape, the served baby steps and client-side g = 16 first. */
function candidatesFor(served: NativeCandidate, paddedDimension: number): NativeCandidate[] {
  const all = [
    served,
    { babySteps: 'client' as const, babyStep: Math.min(16, paddedDimension) },
    ...nativeCandidates(paddedDimension),
  ]
  const seen = new Set<string>()
  return all.filter((c) => {
    const key = `${c.babySteps} ${c.babyStep}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * The server side of an end-to-end case in this process: he-core's index with the served
 * default's baby steps (what the server's worker runs, reading uncompressed seeded queries
 * as native does) and native SEAL (search_native.py: the same BSGS kernel on the same
 * scaled database) in every candidate config that could be its fastest — the served g,
 * client-side g = 16 and `nativeCandidates`, each seeded and unseeded — as many as
 * NATIVE_TWIN_BUDGET_BYTES allows, all sampled round-robin so load bursts hit them alike.
 */
export async function measureEndToEndTwin(
  c: EndToEndCase,
  harness: NativeSearchHarness | undefined,
  samples: number,
  log: (line: string) => void,
): Promise<EndToEndTwinRow> {
  const database = syntheticSearchDatabase({ rows: c.rows, dimension: c.dimension, seed: 1 })
  // The served default (the parameters resolveSearchConfig picks for this D), read uncompressed.
  const served = resolveSearchConfig({ rows: c.rows, dimension: c.dimension })
  const input = {
    rows: c.rows,
    dimension: c.dimension,
    babySteps: served.babySteps,
    babyStep: served.babyStep,
    ...(served.hoistBabySteps ? { hoistBabySteps: true } : {}),
    compression: 'none' as const,
    responseCompression: 'none' as const,
  }
  using wasm = await prepareSearchCase(`${c.title} (WASM)`, input, database)
  const config = wasm.fixture?.config
  if (!config) throw new BenchError('INTERNAL', 'the WASM case has no fixture')
  if (config.configId !== served.configId) {
    throw new BenchError(
      'ENGINE_FAILED',
      `${c.title}: the WASM twin resolved config ${config.configId}, not the served default ${served.configId}`,
    )
  }
  const candidates = candidatesFor(served, config.paddedDimension)
  const fits = Math.max(1, Math.floor(NATIVE_TWIN_BUDGET_BYTES / processedPlaintextBytesOf(config)))
  const tried = candidates.slice(0, fits)
  const notTried = candidates.slice(fits).map((n) => `${n.babySteps}-side g=${n.babyStep}`)
  const natives: SearchCase[] = []
  const fixtures: Disposable[] = []
  let nativeError: string | undefined
  try {
    if (!harness) nativeError = 'native SEAL unavailable'
    for (const candidate of harness ? tried : []) {
      const name = `${c.title}, ${candidate.babySteps}-side g=${candidate.babyStep}`
      try {
        let fixture = wasm.fixture
        if (candidate.babySteps !== served.babySteps || candidate.babyStep !== served.babyStep) {
          const own = await prepareSearchFixture({ ...input, ...candidate, hoistBabySteps: false }, database)
          fixtures.push(own)
          fixture = own
        }
        const forms = (['seeded', 'unseeded'] as const).map((form) => ({ form, label: `${name}, ${form} (native)` }))
        natives.push(...(await prepareNativeTwins({ label: name, fixture }, harness as NativeSearchHarness, forms)))
      } catch (error) {
        nativeError = error instanceof Error ? error.message : String(error)
        log(`native twin ${name} failed: ${nativeError}`)
      }
    }
    const cases = [wasm, ...natives]
    // One untimed query each, then rounds of one timed query each.
    for (const item of cases) await item.sample(false)
    for (let i = 0; i < samples; i++) for (const item of cases) await item.sample()
    const nativeResults = natives.map((n) => n.result())
    return {
      title: c.title,
      rows: c.rows,
      dimension: c.dimension,
      config: {
        babySteps: config.babySteps,
        babyStep: config.babyStep,
        galoisSteps: config.galoisSteps,
        polyModulusDegree: config.polyModulusDegree,
        coeffModulusBits: config.params.coeffModulusBits,
      },
      wasm: sideOf(wasm.result()),
      natives: nativeResults.map(sideOf),
      nativeBest: nativeBest(nativeResults) ?? null,
      notTried,
      ...(nativeError === undefined ? {} : { nativeError }),
    }
  } finally {
    for (const native of natives) native[Symbol.dispose]()
    for (const fixture of fixtures) fixture[Symbol.dispose]()
  }
}

/** The Markdown of the twins' tables: each shape's WASM default over native's best, then every native candidate. */
export function renderEndToEndTwins(rows: readonly EndToEndTwinRow[]): string {
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '–')
  const figure = (f: { ms: number; mode: string }) => `${ms(f.ms)} (${f.mode})`
  const shape = (r: EndToEndTwinRow) => `V=${r.rows.toLocaleString('en-US')}, D=${r.dimension}`
  const lines = [
    "### Server side, WebAssembly vs native SEAL's best (same run)",
    '',
    "Each shape in this process: he-core's index with the served default's baby steps (the server",
    "worker's code, reading uncompressed seeded queries as native does) and native SEAL 4.1",
    '(seal-python: the same kernel on the same scaled database, key set and query vectors) in each',
    'config that could be its fastest — the served g, client-side g = 16 (16 query ciphertexts) and',
    'other server- and client-side g, each with seeded and unseeded uncompressed queries — all sampled',
    "round-robin. Native's best is taken separately for the minimum, the median and the CPU per query,",
    'each naming its config; ms; CPU = mean thread CPU per query. Larger shapes try fewer native',
    'configs (native keeps each one’s processed database): the last column names those left out.',
    '',
    "| shape | WASM: served config | WASM total min / median | WASM CPU | native's best total, min | native's best total, median | native's best CPU | WASM ÷ native's best (min / median / CPU) | exact (WASM / natives) | native configs not tried |",
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ]
  for (const r of rows) {
    const config = `n=${r.config.polyModulusDegree} [${r.config.coeffModulusBits.join(', ')}], ${r.config.babySteps} g=${r.config.babyStep}, keys ${r.config.galoisSteps.join(', ') || 'none'}`
    const best = r.nativeBest
    const ratio = best
      ? `${(r.wasm.total.min / best.totalMin.ms).toFixed(2)} / ${(r.wasm.total.median / best.totalMedian.ms).toFixed(2)} / ${(r.wasm.cpuMean / best.cpu.ms).toFixed(2)}`
      : '–'
    const nativeExact = r.natives.length ? (r.natives.every((n) => n.exact) ? 'yes' : 'NO') : '–'
    lines.push(
      `| ${shape(r)} | ${config} | ${ms(r.wasm.total.min)} / ${ms(r.wasm.total.median)} | ${ms(r.wasm.cpuMean)} | ${best ? figure(best.totalMin) : `– (${r.nativeError ?? 'not run'})`} | ${best ? figure(best.totalMedian) : '–'} | ${best ? figure(best.cpu) : '–'} | ${ratio} | ${r.wasm.exact ? 'yes' : 'NO'} / ${nativeExact} | ${r.notTried.join(', ') || 'none'} |`,
    )
  }
  lines.push(
    '',
    'Every native config measured (ms, min / median; CPU per query):',
    '',
    '| shape | native config | total | CPU | exact |',
    '| --- | --- | ---: | ---: | --- |',
  )
  for (const r of rows) {
    for (const n of r.natives) {
      lines.push(
        `| ${shape(r)} | ${n.mode} | ${ms(n.total.min)} / ${ms(n.total.median)} | ${ms(n.cpuMean)} | ${n.exact ? 'yes' : 'NO'} |`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}
