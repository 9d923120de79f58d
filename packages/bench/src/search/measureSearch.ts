import { EvaluationKeys, getHeContext, type HeContext } from '@sealbox/he-core'
import {
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchConfig,
  type SearchConfigInput,
  type SearchDatabase,
  type SearchKernelChoice,
  type SearchKeys,
  type SearchWireEncoding,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { medianOfFinite, type Spread, spread } from '../core/stats.ts'
import { threadCpuMs } from '../core/threadCpuMs.ts'
import type { SealCallClock } from './sealCallClock.ts'

/** Min and median of each server phase of one config (ms, wall clock). */
export interface PhaseSpreads {
  decode: Spread
  load: Spread
  compute: Spread
  save: Spread
  total: Spread
}

/** How many queries to time, after how many warm-up queries. */
export interface SampleCounts {
  warmup: number
  samples: number
}

/** Everything measured for one search config. */
export interface SearchMeasurement {
  label: string
  config: Pick<
    SearchConfig,
    | 'configId'
    | 'scheme'
    | 'babySteps'
    | 'hoistBabySteps'
    | 'babyStep'
    | 'galoisSteps'
    | 'queryCiphertexts'
    | 'operations'
    | 'estimatedServerMs'
    | 'nttForm'
    | 'rows'
    | 'dimension'
    | 'polyModulusDegree'
    | 'scale'
  > & { coeffModulusBits: number[]; blocks: number }
  processMs: number
  processedBytes: number
  keyGenMs: number
  /** Galois-keys envelope (seeded, zstd); 0 when the config needs none. */
  keyBytes: number
  keyLoadMs: number
  queryBytes: number
  responseBytes: number
  clientEncryptMs: number
  clientDecryptMs: number
  /** Server wall-clock time per query (ms): the compute phase and the whole evaluate. */
  compute: Spread
  total: Spread
  /**
   * Mean CPU time of this thread per evaluate (ms). Linux accounts thread CPU time in
   * scheduler ticks, so single samples are coarse, but the mean is unbiased: what one
   * query costs a core, however busy the shared machine is.
   */
  cpuMean: number
  /** Wall-clock ms of the other phases (medians). */
  decodeMs: number
  loadMs: number
  saveMs: number
  /** Every phase's min and median, timed alike for WASM and native. */
  phases: PhaseSpreads
  /** Who ran the server half: node-seal (WASM) or native SEAL (seal-python), and the query's compression. */
  engine: 'wasm' | 'native'
  /**
   * What ran the WASM sums: he-core's WebAssembly kernel (`dyadic`) or SEAL's evaluator
   * (`seal`); native rows always run SEAL's evaluator.
   */
  kernel: 'dyadic' | 'keySwitch' | 'seal'
  /** Whether the query ciphertexts carry seeds (half the bytes; the server regenerates the random halves). */
  querySeeded: boolean
  queryCompression: SearchWireEncoding
  responseCompression: SearchWireEncoding
  minNoiseBudget: number
  /** Decrypted scores equal the plaintext oracle for every row. */
  exact: boolean
  /** JavaScript share (outside SEAL calls) of the compute phase and of the whole evaluate, from an instrumented pass. */
  jsShare?: { compute: number; total: number; decode: number }
}

/** A processed index, a client, its keys and pre-encrypted queries, ready to be sampled. */
export interface SearchCase extends Disposable {
  label: string
  /** One evaluation, timed unless it is a warm-up (a native case answers over a pipe, hence the promise). */
  sample(record?: boolean): void | Promise<void>
  /** One evaluation under the SEAL call clock (for the JavaScript share). */
  sampleWithClock(clock: SealCallClock): void
  result(): SearchMeasurement
  /** What a native twin of this case reuses: the same config, client (key set), query vectors and database. */
  fixture?: SearchCaseFixture
  /** A native twin with Galois keys: `samples` single rotations by one step, ms each. */
  rotations?(samples: number): Promise<number[]>
}

/** The client side of a WASM case, for a native twin to serve the same queries. */
export interface SearchCaseFixture {
  config: SearchConfig
  ctx: HeContext
  client: PrivateSearchClient
  keys: SearchKeys | null
  keyBytes: number
  /** Key generation and export (ms). */
  keyGenMs: number
  /** Loading the exported keys as a server does (ms; 0 without keys). */
  keyLoadMs: number
  vectors: Float64Array[]
  queries: Uint8Array[]
  /** Whether `queries` carry seeds, and their median encryption time (ms). */
  querySeeded: boolean
  clientEncryptMs: number
  database: SearchDatabase
}

/**
 * A config's client side without an index: its client and key set, the Galois keys loaded
 * as a server loads them, four query vectors and their query bundles. What a native twin
 * needs when no WASM case of that config is measured; dispose it after the twin.
 */
export async function prepareSearchFixture(
  input: SearchConfigInput,
  database: SearchDatabase,
  options: { seeded?: boolean } = {},
): Promise<SearchCaseFixture & Disposable> {
  const config = resolveSearchConfig({ ...input, rows: database.rows, dimension: database.dimension })
  const ctx = await getHeContext(config.params)
  let started = performance.now()
  const client = PrivateSearchClient.create(ctx, config)
  const keyEnvelope = client.evaluationKeys()
  const keyGenMs = performance.now() - started
  started = performance.now()
  const keys = keyEnvelope ? EvaluationKeys.load(ctx, keyEnvelope) : null
  const keyLoadMs = keyEnvelope ? performance.now() - started : 0
  const vectors = Array.from({ length: 4 }, (_, i) => syntheticSearchQuery(config.dimension, 100 + i))
  const querySeeded = options.seeded ?? true
  const encryptTimes: number[] = []
  const queries = vectors.map((vector) => {
    const t = performance.now()
    const query = client.encryptQuery(vector, { seeded: querySeeded })
    encryptTimes.push(performance.now() - t)
    return query
  })
  return {
    config,
    ctx,
    client,
    keys,
    keyBytes: keyEnvelope?.byteLength ?? 0,
    keyGenMs,
    keyLoadMs,
    vectors,
    queries,
    querySeeded,
    clientEncryptMs: medianOfFinite(encryptTimes),
    database,
    [Symbol.dispose]() {
      keys?.dispose()
      client.dispose()
    },
  }
}

/** The config columns of a measurement. */
export function measurementConfig(config: SearchConfig): SearchMeasurement['config'] {
  return {
    configId: config.configId,
    scheme: config.scheme,
    babySteps: config.babySteps,
    hoistBabySteps: config.hoistBabySteps,
    babyStep: config.babyStep,
    galoisSteps: config.galoisSteps,
    queryCiphertexts: config.queryCiphertexts,
    operations: config.operations,
    estimatedServerMs: config.estimatedServerMs,
    nttForm: config.nttForm,
    rows: config.rows,
    dimension: config.dimension,
    polyModulusDegree: config.polyModulusDegree,
    scale: config.scale,
    coeffModulusBits: config.params.coeffModulusBits,
    blocks: config.blocks.length,
  }
}

/** Processes the database for `input`, makes the client and its keys, checks one query against the oracle. */
export async function prepareSearchCase(
  label: string,
  input: SearchConfigInput,
  database: SearchDatabase,
  options: { kernel?: SearchKernelChoice; seeded?: boolean } = {},
): Promise<SearchCase> {
  const fixture = await prepareSearchFixture(
    input,
    database,
    options.seeded === undefined ? {} : { seeded: options.seeded },
  )
  const { config, ctx, client, keys, queries, vectors, keyGenMs, keyLoadMs } = fixture
  let index: PrivateSearchIndex
  try {
    index = PrivateSearchIndex.process(ctx, database, config, { kernel: options.kernel ?? 'auto' })
  } catch (error) {
    fixture[Symbol.dispose]()
    throw error
  }
  const first = index.evaluate(queries[0] as Uint8Array, keys)
  const started = performance.now()
  const decrypted = client.decryptScores(first.response)
  const clientDecryptMs = performance.now() - started
  const oracle = plaintextSearchScores(config, database, vectors[0] as Float64Array)
  const exact = oracle.every((score, row) => decrypted.scores[row] === score) && decrypted.strayNonZeroSlots === 0

  const phases = { compute: [] as number[], total: [] as number[], cpu: [] as number[] }
  const other = { decode: [] as number[], load: [] as number[], save: [] as number[] }
  const shares = { compute: [] as number[], total: [] as number[], decode: [] as number[] }
  let next = 0
  const nextQuery = () => queries[next++ % queries.length] as Uint8Array

  return {
    label,
    fixture,
    sample(record = true) {
      const cpuStart = threadCpuMs()
      const { timings } = index.evaluate(nextQuery(), keys)
      if (!record) return
      phases.cpu.push(threadCpuMs() - cpuStart)
      phases.compute.push(timings.computeMs)
      phases.total.push(timings.totalMs)
      other.decode.push(timings.decodeMs)
      other.load.push(timings.loadMs)
      other.save.push(timings.saveMs)
    },
    sampleWithClock(clock) {
      const { value, seal, wallMs } = clock.measure(() => index.evaluate(nextQuery(), keys))
      const inSeal = seal.compute + seal.load + seal.save + seal.other
      shares.compute.push(1 - seal.compute / value.timings.computeMs)
      shares.total.push(1 - inSeal / wallMs)
      shares.decode.push(value.timings.decodeMs / wallMs)
    },
    result(): SearchMeasurement {
      return {
        label,
        config: measurementConfig(config),
        processMs: index.processing.milliseconds,
        processedBytes: index.processing.bytes,
        keyGenMs,
        keyBytes: fixture.keyBytes,
        keyLoadMs,
        queryBytes: (queries[0] as Uint8Array).byteLength,
        responseBytes: first.response.byteLength,
        clientEncryptMs: fixture.clientEncryptMs,
        clientDecryptMs,
        compute: spread(phases.compute),
        total: spread(phases.total),
        cpuMean: phases.cpu.reduce((sum, value) => sum + value, 0) / Math.max(1, phases.cpu.length),
        decodeMs: medianOfFinite(other.decode),
        loadMs: medianOfFinite(other.load),
        saveMs: medianOfFinite(other.save),
        phases: {
          decode: spread(other.decode),
          load: spread(other.load),
          compute: spread(phases.compute),
          save: spread(other.save),
          total: spread(phases.total),
        },
        engine: 'wasm',
        kernel: index.kernel,
        querySeeded: fixture.querySeeded,
        queryCompression: config.compression,
        responseCompression: config.responseCompression,
        minNoiseBudget: decrypted.minNoiseBudget,
        exact,
        ...(shares.compute.length
          ? {
              jsShare: {
                compute: medianOfFinite(shares.compute),
                total: medianOfFinite(shares.total),
                decode: medianOfFinite(shares.decode),
              },
            }
          : {}),
      }
    },
    [Symbol.dispose]() {
      fixture[Symbol.dispose]()
      index.dispose()
    },
  }
}

/**
 * Samples every case round-robin — an untimed then a timed query of each per round —
 * so a burst of load on the shared machine hits all configs alike and their numbers
 * stay comparable, while each timed query still runs on warm caches.
 * `clocked` cases then get an instrumented pass for the JavaScript share.
 */
export async function runInterleaved(
  cases: readonly SearchCase[],
  counts: SampleCounts,
  options: { clock?: SealCallClock; clocked?: readonly SearchCase[]; onRound?: (round: number) => void } = {},
): Promise<SearchMeasurement[]> {
  for (let i = 0; i < counts.warmup; i++) for (const item of cases) await item.sample(false)
  for (let round = 0; round < counts.samples; round++) {
    for (const item of cases) {
      // The query before the timed one warms the caches with this config's database,
      // as on a server that answers many queries against the same one.
      await item.sample(false)
      await item.sample()
    }
    options.onRound?.(round)
  }
  if (options.clock) {
    for (let i = 0; i < Math.max(10, counts.samples >> 1); i++) {
      for (const item of options.clocked ?? []) item.sampleWithClock(options.clock)
    }
  }
  return cases.map((item) => item.result())
}

/** One config on its own: prepare, sample, measure, dispose. */
export async function measureSearch(
  label: string,
  input: SearchConfigInput,
  database: SearchDatabase,
  counts: SampleCounts,
  clock?: SealCallClock,
): Promise<SearchMeasurement> {
  using item = await prepareSearchCase(label, input, database)
  const [result] = await runInterleaved([item], counts, clock ? { clock, clocked: [item] } : {})
  return result as SearchMeasurement
}
