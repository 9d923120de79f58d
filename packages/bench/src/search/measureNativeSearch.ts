import { sealCompressionMode } from '@sealbox/he-core'
import { PrivateSearchClient, plaintextSearchScores, scaleDatabaseVectors } from '@sealbox/he-core/search'
import type { NativeSampleTimings, NativeSearchHarness } from '../engines/native/NativeSearchHarness.ts'
import { medianOfFinite } from '../harness/stats.ts'
import type { SearchCase, SearchMeasurement } from './measureSearch.ts'
import { spread } from './searchStats.ts'

let nextId = 0

/**
 * The native twin of a WASM case: the same config, database, key set and query vectors,
 * served by native SEAL 4.1 (search_native.py). The wheel has no zstd, so its queries
 * are the uncompressed seeded ones: the WASM case's own bytes when that case uses
 * `compression: 'none'`, else the same vectors encrypted uncompressed under the same
 * key set. Its first response is decrypted by he-core's client and checked against the
 * plaintext oracle, like the WASM case's.
 */
export async function prepareNativeTwin(
  wasm: SearchCase,
  harness: NativeSearchHarness,
  label = `${wasm.label} (native)`,
): Promise<SearchCase> {
  const fixture = wasm.fixture
  if (!fixture) throw new Error(`${wasm.label} has no fixture for a native twin`)
  const { config, ctx, client, keys, database, vectors } = fixture
  const uncompressed = config.compression === 'none'
  const twinClient = uncompressed
    ? client
    : PrivateSearchClient.create(ctx, { ...config, compression: 'none' }, { keySet: client.keySet })
  const queries = uncompressed ? fixture.queries : vectors.map((vector) => twinClient.encryptQuery(vector))
  if (!uncompressed) twinClient.dispose()
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
    queries,
  })
  const first = await harness.sample(id, 0, true)
  const response = first.response as Uint8Array
  const decrypted = client.decryptScores(response)
  const oracle = plaintextSearchScores(config, database, vectors[0] as Float64Array)
  const exact = oracle.every((score, row) => decrypted.scores[row] === score) && decrypted.strayNonZeroSlots === 0

  const samples: NativeSampleTimings[] = []
  let next = 0
  return {
    label,
    ...(galoisKeys ? { rotations: (samples: number) => harness.rotations(id, samples) } : {}),
    async sample(record = true) {
      const { timings } = await harness.sample(id, next++)
      if (record) samples.push(timings)
    },
    sampleWithClock() {},
    result(): SearchMeasurement {
      const wasmResult = wasm.result()
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
        config: wasmResult.config,
        processMs: setup.processMs,
        processedBytes: wasmResult.processedBytes,
        keyGenMs: wasmResult.keyGenMs,
        keyBytes: galoisKeys?.byteLength ?? 0,
        keyLoadMs: setup.keyLoadMs,
        queryBytes: (queries[0] as Uint8Array).byteLength,
        responseBytes: response.byteLength,
        clientEncryptMs: wasmResult.clientEncryptMs,
        clientDecryptMs: wasmResult.clientDecryptMs,
        compute: phases.compute,
        total: phases.total,
        cpuMean: cpu.reduce((sum, value) => sum + value, 0) / Math.max(1, cpu.length),
        decodeMs: medianOfFinite(list('decodeMs')),
        loadMs: medianOfFinite(list('loadMs')),
        saveMs: medianOfFinite(list('saveMs')),
        phases,
        engine: 'native',
        kernel: 'seal',
        querySeeded: uncompressed ? wasmResult.querySeeded : true,
        queryCompression: 'none',
        responseCompression: 'none',
        minNoiseBudget: decrypted.minNoiseBudget,
        exact,
      }
    },
    [Symbol.dispose]() {
      void harness.dispose(id).catch(() => {})
    },
  }
}
