import { resolveSearchConfig, syntheticSearchDatabase } from '@sealbox/he-core/search'
import type { NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import type { EndToEndCase } from './measureEndToEnd.ts'
import { prepareNativeTwin } from './measureNativeSearch.ts'
import { prepareSearchCase, type SearchMeasurement } from './measureSearch.ts'
import type { Spread } from './searchStats.ts'

/** One engine's server side of an end-to-end shape, measured in this process (no HTTP). */
export interface TwinSide {
  total: Spread
  cpuMean: number
  exact: boolean
  queryBytes: number
  responseBytes: number
  keyBytes: number
}

/** The server side of one end-to-end shape in WebAssembly and native SEAL, same config, data, keys and queries. */
export interface EndToEndTwinRow {
  title: string
  rows: number
  dimension: number
  config: { babySteps: string; babyStep: number; galoisSteps: number[]; polyModulusDegree: number }
  wasm: TwinSide
  /** Null when native SEAL could not serve it (the reason beside). */
  native: TwinSide | null
  nativeError?: string
}

function side(result: SearchMeasurement): TwinSide {
  return {
    total: result.total,
    cpuMean: result.cpuMean,
    exact: result.exact,
    queryBytes: result.queryBytes,
    responseBytes: result.responseBytes,
    keyBytes: result.keyBytes,
  }
}

/**
 * The server side of an end-to-end case in this process: he-core's index (what the server's
 * worker runs) and its native SEAL twin (search_native.py: the same BSGS kernel on the same
 * scaled database, key set and query vectors), sampled round-robin so load bursts hit both.
 * Both read uncompressed seeded queries (the native wheel has no zstd and no packed reader);
 * the server totals compare the engines, not the wire encodings, which the shaped rows measure.
 */
export async function measureEndToEndTwin(
  c: EndToEndCase,
  harness: NativeSearchHarness | undefined,
  samples: number,
  log: (line: string) => void,
): Promise<EndToEndTwinRow> {
  const database = syntheticSearchDatabase({ rows: c.rows, dimension: c.dimension, seed: 1 })
  // The served default's baby steps and g, read uncompressed (left to itself the model might pick another g for that wire).
  const served = resolveSearchConfig({ rows: c.rows, dimension: c.dimension })
  const input = { babySteps: served.babySteps, babyStep: served.babyStep, compression: 'none' as const }
  using wasm = await prepareSearchCase(
    `${c.title} (WASM)`,
    { rows: c.rows, dimension: c.dimension, ...input },
    database,
  )
  const config = wasm.fixture?.config
  if (!config) throw new Error('the WASM case has no fixture')
  let native: Awaited<ReturnType<typeof prepareNativeTwin>> | undefined
  let nativeError: string | undefined
  if (harness) {
    try {
      native = await prepareNativeTwin(wasm, harness, `${c.title} (native)`)
    } catch (error) {
      nativeError = error instanceof Error ? error.message : String(error)
      log(`native twin of ${c.title} failed: ${nativeError}`)
    }
  } else {
    nativeError = 'native SEAL unavailable'
  }
  try {
    // One untimed query each, then timed queries alternating between the engines.
    await wasm.sample(false)
    await native?.sample(false)
    for (let i = 0; i < samples; i++) {
      await wasm.sample()
      await native?.sample()
    }
    return {
      title: c.title,
      rows: c.rows,
      dimension: c.dimension,
      config: {
        babySteps: config.babySteps,
        babyStep: config.babyStep,
        galoisSteps: config.galoisSteps,
        polyModulusDegree: config.polyModulusDegree,
      },
      wasm: side(wasm.result()),
      native: native ? side(native.result()) : null,
      ...(nativeError === undefined ? {} : { nativeError }),
    }
  } finally {
    native?.[Symbol.dispose]()
  }
}

/** The Markdown of the twins' table. */
export function renderEndToEndTwins(rows: readonly EndToEndTwinRow[]): string {
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '–')
  const lines = [
    '### Server side, WebAssembly vs native SEAL (same run)',
    '',
    "Each shape's default config in this process: he-core's index (the server worker's code) and",
    'its native SEAL 4.1 twin (seal-python, the same kernel on the same scaled database, key set and',
    'queries), sampled round-robin; uncompressed seeded queries for both (the native wheel reads no',
    'zstd and no packed ciphertexts). ms min / median; CPU = mean thread CPU per query.',
    '',
    '| shape | config | WASM server total | WASM CPU | native server total | native CPU | WASM ÷ native (min) | exact (WASM / native) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ]
  for (const r of rows) {
    const config = `n=${r.config.polyModulusDegree}, ${r.config.babySteps} g=${r.config.babyStep}, keys ${r.config.galoisSteps.join(', ') || 'none'}`
    const native = r.native
    lines.push(
      `| V=${r.rows.toLocaleString('en-US')}, D=${r.dimension} | ${config} | ${ms(r.wasm.total.min)} / ${ms(r.wasm.total.median)} | ${ms(r.wasm.cpuMean)} | ${native ? `${ms(native.total.min)} / ${ms(native.total.median)}` : `– (${r.nativeError ?? 'not run'})`} | ${native ? ms(native.cpuMean) : '–'} | ${native ? (r.wasm.total.min / native.total.min).toFixed(2) : '–'} | ${r.wasm.exact ? 'yes' : 'NO'} / ${native ? (native.exact ? 'yes' : 'NO') : '–'} |`,
    )
  }
  return `${lines.join('\n')}\n`
}
