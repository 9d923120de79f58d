import { sealCompressionMode } from '@sealbox/he-core/envelope'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  type SearchConfig,
  scaleDatabaseVectors,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { medianOfFinite, spread } from '../core/stats.ts'
import type { NativeSampleTimings, NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { measurementConfig, type SearchCase, type SearchCaseFixture, type SearchMeasurement } from './measureSearch.ts'

let nextId = 0

/** How a native twin's queries travel: seeded (the server expands the seeds) or unseeded (twice the bytes), uncompressed either way. */
export type NativeQueryForm = 'seeded' | 'unseeded'

/** What a native twin serves: a config's client side (a WASM case, or a fixture alone). */
export interface NativeTwinSource {
  label: string
  fixture?: SearchCaseFixture | undefined
}

/** Bytes of NTT-form plaintexts a config's processed database holds: every diagonal of every block at every data prime. */
export function processedPlaintextBytesOf(config: SearchConfig): number {
  const diagonals = config.blocks.reduce((sum, block) => sum + block.diagonals, 0)
  return diagonals * config.polyModulusDegree * 8 * (config.params.coeffModulusBits.length - 1)
}

/**
 * The native twin of a WASM case: the same config, database, key set and query vectors,
 * served by native SEAL 4.1 (search_native.py). The wheel has no zstd, so its queries
 * are uncompressed: the WASM case's own bytes when that case uses `compression: 'none'`,
 * else the same vectors encrypted uncompressed (seeded) under the same key set. Its first
 * response is decrypted by he-core's client and checked against the plaintext oracle.
 */
export async function prepareNativeTwin(
  wasm: NativeTwinSource,
  harness: NativeSearchHarness,
  label = `${wasm.label} (native)`,
): Promise<SearchCase> {
  const fixture = wasm.fixture
  if (!fixture) throw new BenchError('INTERNAL', `${wasm.label} has no fixture for a native twin`)
  const form: NativeQueryForm = fixture.config.compression === 'none' && !fixture.querySeeded ? 'unseeded' : 'seeded'
  const [twin] = await prepareNativeTwins(wasm, harness, [{ form, label }])
  return twin as SearchCase
}

/**
 * Native twins of one config in several query forms, sharing one native setup (one
 * processed database, one key load): a case per form, each sampling its own queries, so
 * the forms can be sampled round-robin without a database per form.
 */
export async function prepareNativeTwins(
  source: NativeTwinSource,
  harness: NativeSearchHarness,
  forms: readonly { form: NativeQueryForm; label: string }[],
): Promise<SearchCase[]> {
  const fixture = source.fixture
  if (!fixture) throw new BenchError('INTERNAL', `${source.label} has no fixture for a native twin`)
  const { config, ctx, client, keys, database, vectors } = fixture
  // The WASM case's own bundles where they are already a form native reads; else the same vectors re-encrypted.
  const own: NativeQueryForm | undefined =
    config.compression === 'none' ? (fixture.querySeeded ? 'seeded' : 'unseeded') : undefined
  const uncompressed = PrivateSearchClient.create(ctx, { ...config, compression: 'none' }, { keySet: client.keySet })
  const sets = forms.map(({ form }) =>
    form === own
      ? fixture.queries
      : vectors.map((vector) => uncompressed.encryptQuery(vector, { seeded: form === 'seeded' })),
  )
  uncompressed.dispose()
  const galoisKeys = keys?.galoisKeys ? (keys.galoisKeys.saveToArray(sealCompressionMode('none')) as Uint8Array) : null
  const id = `case${nextId++}`
  const setup = await harness.setup(id, {
    scheme: config.scheme,
    configId: config.configId,
    fingerprint: ctx.fingerprint,
    coeffModulusBits: config.params.coeffModulusBits,
    plainModulus: config.plainModulus,
    babySteps: config.babySteps,
    queryCiphertexts: config.queryCiphertexts,
    rows: config.rows,
    shape: {
      n: config.polyModulusDegree,
      dimension: config.dimension,
      paddedDimension: config.paddedDimension,
      babyStep: config.babyStep,
    },
    blocks: config.blocks,
    scaled: scaleDatabaseVectors(config, database),
    galoisKeys,
    queries: sets.flat(),
  })
  const oracle = plaintextSearchScores(config, database, vectors[0] as Float64Array)
  let live = forms.length
  const twins: SearchCase[] = []
  for (const [f, { form, label }] of forms.entries()) {
    const queries = sets[f] as Uint8Array[]
    const offset = sets.slice(0, f).reduce((sum, list) => sum + list.length, 0)
    const first = await harness.sample(id, offset, true)
    const response = first.response as Uint8Array
    const started = performance.now()
    const decrypted = client.decryptScores(response)
    const clientDecryptMs = performance.now() - started
    const exact = oracle.every((score, row) => decrypted.scores[row] === score) && decrypted.strayNonZeroSlots === 0
    const samples: NativeSampleTimings[] = []
    let next = 0
    twins.push({
      label,
      ...(galoisKeys && f === 0 ? { rotations: (samples: number) => harness.rotations(id, samples) } : {}),
      async sample(record = true) {
        const { timings } = await harness.sample(id, offset + (next++ % queries.length))
        if (record) samples.push(timings)
      },
      sampleWithClock() {},
      result(): SearchMeasurement {
        const list = (key: keyof NativeSampleTimings) => samples.map((s) => s[key])
        const phases = {
          decode: spread(list('decodeMs')),
          load: spread(list('loadMs')),
          compute: spread(list('computeMs')),
          save: spread(list('saveMs')),
          total: spread(list('totalMs')),
        }
        const cpu = list('cpuMs')
        return {
          label,
          config: measurementConfig(config),
          processMs: setup.processMs,
          processedBytes: processedPlaintextBytesOf(config),
          keyGenMs: fixture.keyGenMs,
          keyBytes: galoisKeys?.byteLength ?? 0,
          keyLoadMs: setup.keyLoadMs,
          queryBytes: (queries[0] as Uint8Array).byteLength,
          responseBytes: response.byteLength,
          clientEncryptMs: fixture.clientEncryptMs,
          clientDecryptMs,
          compute: phases.compute,
          total: phases.total,
          cpuMean: cpu.reduce((sum, value) => sum + value, 0) / Math.max(1, cpu.length),
          decodeMs: medianOfFinite(list('decodeMs')),
          loadMs: medianOfFinite(list('loadMs')),
          saveMs: medianOfFinite(list('saveMs')),
          phases,
          engine: 'native',
          kernel: 'seal',
          querySeeded: form === 'seeded',
          queryCompression: 'none',
          responseCompression: 'none',
          minNoiseBudget: decrypted.minNoiseBudget,
          exact,
        }
      },
      [Symbol.dispose]() {
        // The setup is shared: the last twin disposed frees it.
        if (--live === 0) void harness.dispose(id).catch(() => {})
      },
    })
  }
  return twins
}
