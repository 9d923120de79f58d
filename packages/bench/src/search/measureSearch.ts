import process from 'node:process'
import {
  getHeContext,
  PrivateSearchClient,
  PrivateSearchIndex,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchConfig,
  type SearchConfigInput,
  type SearchDatabase,
  SearchEvaluationKeys,
  syntheticSearchQuery,
} from '@sealbox/he-core'
import type { SealCallClock } from './sealCallClock.ts'
import { medianOf, type Spread, spread } from './searchStats.ts'

/**
 * This thread's CPU time in ms. The benchmark machine is shared (other engineers'
 * builds, browsers, tests): CPU time counts only the time a core actually ran this
 * query, where wall-clock time also counts waiting for a core. Tick-based: average it.
 */
export function threadCpuMs(): number {
  const usage = process.threadCpuUsage()
  return (usage.user + usage.system) / 1000
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
  minNoiseBudget: number
  /** Decrypted scores equal the plaintext oracle for every row. */
  exact: boolean
  /** JavaScript share (outside SEAL calls) of the compute phase and of the whole evaluate, from an instrumented pass. */
  jsShare?: { compute: number; total: number; decode: number }
}

/**
 * Processes `database` for `input`, makes a client and its keys, then times
 * `counts.samples` evaluations of pre-encrypted queries (the server's work only).
 */
export async function measureSearch(
  label: string,
  input: SearchConfigInput,
  database: SearchDatabase,
  counts: SampleCounts,
  clock?: SealCallClock,
): Promise<SearchMeasurement> {
  const config = resolveSearchConfig({ ...input, rows: database.rows, dimension: database.dimension })
  const ctx = await getHeContext(config.params)
  using index = PrivateSearchIndex.process(ctx, database, config)
  let started = performance.now()
  using client = PrivateSearchClient.create(ctx, config)
  const keyEnvelope = client.evaluationKeys()
  const keyGenMs = performance.now() - started
  started = performance.now()
  using keys = keyEnvelope ? SearchEvaluationKeys.load(ctx, keyEnvelope) : undefined
  const keyLoadMs = keyEnvelope ? performance.now() - started : 0

  const vectors = Array.from({ length: 4 }, (_, i) => syntheticSearchQuery(config.dimension, 100 + i))
  const encryptTimes: number[] = []
  const queries = vectors.map((vector) => {
    const t = performance.now()
    const query = client.encryptQuery(vector)
    encryptTimes.push(performance.now() - t)
    return query
  })
  const first = index.evaluate(queries[0] as Uint8Array, keys ?? null)
  started = performance.now()
  const decrypted = client.decryptScores(first.response)
  const clientDecryptMs = performance.now() - started
  const oracle = plaintextSearchScores(config, database, vectors[0] as Float64Array)
  const exact = oracle.every((score, row) => decrypted.scores[row] === score) && decrypted.strayNonZeroSlots === 0

  for (let i = 0; i < counts.warmup; i++) index.evaluate(queries[i % queries.length] as Uint8Array, keys ?? null)
  const phases = {
    compute: [] as number[],
    total: [] as number[],
    cpu: [] as number[],
    decode: [] as number[],
    load: [] as number[],
    save: [] as number[],
  }
  for (let i = 0; i < counts.samples; i++) {
    const cpuStart = threadCpuMs()
    const { timings } = index.evaluate(queries[i % queries.length] as Uint8Array, keys ?? null)
    phases.cpu.push(threadCpuMs() - cpuStart)
    phases.compute.push(timings.computeMs)
    phases.total.push(timings.totalMs)
    phases.decode.push(timings.decodeMs)
    phases.load.push(timings.loadMs)
    phases.save.push(timings.saveMs)
  }

  let jsShare: SearchMeasurement['jsShare']
  if (clock) {
    const compute: number[] = []
    const total: number[] = []
    const decode: number[] = []
    for (let i = 0; i < Math.max(10, counts.samples >> 1); i++) {
      const { value, seal, wallMs } = clock.measure(() =>
        index.evaluate(queries[i % queries.length] as Uint8Array, keys ?? null),
      )
      const inSeal = seal.compute + seal.load + seal.save + seal.other
      compute.push(1 - seal.compute / value.timings.computeMs)
      total.push(1 - inSeal / wallMs)
      decode.push(value.timings.decodeMs / wallMs)
    }
    jsShare = { compute: medianOf(compute), total: medianOf(total), decode: medianOf(decode) }
  }

  return {
    label,
    config: {
      configId: config.configId,
      scheme: config.scheme,
      babySteps: config.babySteps,
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
    },
    processMs: index.processing.milliseconds,
    processedBytes: index.processing.bytes,
    keyGenMs,
    keyBytes: keyEnvelope?.byteLength ?? 0,
    keyLoadMs,
    queryBytes: (queries[0] as Uint8Array).byteLength,
    responseBytes: first.response.byteLength,
    clientEncryptMs: medianOf(encryptTimes),
    clientDecryptMs,
    compute: spread(phases.compute),
    total: spread(phases.total),
    cpuMean: phases.cpu.reduce((sum, value) => sum + value, 0) / Math.max(1, phases.cpu.length),
    decodeMs: medianOf(phases.decode),
    loadMs: medianOf(phases.load),
    saveMs: medianOf(phases.save),
    minNoiseBudget: decrypted.minNoiseBudget,
    exact,
    ...(jsShare ? { jsShare } : {}),
  }
}
