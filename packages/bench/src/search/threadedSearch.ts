import { Worker } from 'node:worker_threads'
import { getHeContext, sealWasmModule } from '@sealbox/he-core'
import { PendingReplies } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  resolveSearchConfig,
  type SearchConfigInput,
  syntheticSearchDatabase,
  syntheticSearchQuery,
} from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { type Spread, spread } from '../core/stats.ts'
import type { SampleCounts } from './measureSearch.ts'
import type { SearchWorkerData, SearchWorkerReply, SearchWorkerRequest } from './searchWorkerProtocol.ts'

/** One query's latency with its blocks split over `threads` worker threads. */
export interface ThreadedMeasurement {
  threads: number
  rows: number
  blocks: number
  /** Blocks per worker. */
  split: number[]
  /** Wall time from posting the query to holding every part (ms). */
  latency: Spread
  /** Longest worker compute per query (ms). */
  slowestCompute: Spread
  exact: boolean
}

type SearchResponse = Extract<SearchWorkerReply, { type: 'response' }>

class SearchWorker {
  readonly worker: Worker
  readonly #replies = new PendingReplies<SearchResponse>()
  readonly ready: Promise<Extract<SearchWorkerReply, { type: 'ready' }>>

  constructor(data: SearchWorkerData) {
    this.worker = new Worker(new URL('./searchWorker.ts', import.meta.url), { workerData: data })
    this.worker.once('exit', (code) =>
      this.#replies.fail(new BenchError('PROCESS_FAILED', `a search worker exited (code ${code})`)),
    )
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject)
      const onMessage = (message: SearchWorkerReply) => {
        if (message.type === 'ready') resolve(message)
        else if (message.type === 'error' && message.id === undefined)
          reject(new BenchError('PROCESS_FAILED', message.message))
        else if (message.type === 'response') this.#replies.resolve(message.id, message)
        else if (message.id !== undefined)
          this.#replies.reject(message.id, new BenchError('PROCESS_FAILED', message.message))
      }
      this.worker.on('message', onMessage)
    })
  }

  evaluate(query: Uint8Array): Promise<SearchResponse> {
    return this.#replies.request((id) => {
      const request: SearchWorkerRequest = { type: 'query', id, query }
      this.worker.postMessage(request)
    })
  }

  async close(): Promise<void> {
    this.worker.postMessage({ type: 'close' } satisfies SearchWorkerRequest)
    await this.worker.terminate()
  }
}

/** Splits `blocks` into `parts` contiguous ranges of near-equal size. */
function splitBlocks(blocks: number, parts: number): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = []
  let start = 0
  for (let part = 0; part < parts; part++) {
    const size = Math.ceil((blocks - start) / (parts - part))
    ranges.push({ start, end: start + size })
    start += size
  }
  return ranges.filter((range) => range.end > range.start)
}

/**
 * Runs one query at a time over `threads` workers, each holding a contiguous share of
 * the blocks (one worker = all blocks, as a baseline with the same messaging cost).
 */
export async function measureThreaded(
  input: SearchConfigInput,
  database: { rows: number; dimension: number; seed: number },
  threads: number,
  counts: SampleCounts,
): Promise<ThreadedMeasurement> {
  const config = resolveSearchConfig({ ...input, rows: database.rows, dimension: database.dimension })
  const ctx = await getHeContext(config.params)
  const ranges = splitBlocks(config.blocks.length, threads)
  using client = PrivateSearchClient.create(ctx, config)
  // Each worker serves the client's own keys (the default rotates on the server).
  const keys = client.evaluationKeys()
  const workers = ranges.map(
    (blocks) => new SearchWorker({ config: input, database, blocks, keys, wasmModule: sealWasmModule() }),
  )
  try {
    await Promise.all(workers.map((worker) => worker.ready))
    const vectors = Array.from({ length: 4 }, (_, i) => syntheticSearchQuery(config.dimension, 200 + i))
    const queries = vectors.map((vector) => client.encryptQuery(vector))
    const run = async (query: Uint8Array) => {
      const started = performance.now()
      const parts = await Promise.all(workers.map((worker) => worker.evaluate(query)))
      return { latency: performance.now() - started, parts }
    }
    const check = await run(queries[0] as Uint8Array)
    const scores = client.decryptScores(check.parts.map((part) => part.response)).scores
    const oracle = plaintextSearchScores(config, syntheticSearchDatabase(database), vectors[0] as Float64Array)
    const exact = oracle.every((score, row) => scores[row] === score)
    for (let i = 0; i < counts.warmup; i++) await run(queries[i % queries.length] as Uint8Array)
    const latency: number[] = []
    const slowest: number[] = []
    for (let i = 0; i < counts.samples; i++) {
      const result = await run(queries[i % queries.length] as Uint8Array)
      latency.push(result.latency)
      slowest.push(Math.max(...result.parts.map((part) => part.timings.computeMs)))
    }
    return {
      threads,
      rows: database.rows,
      blocks: config.blocks.length,
      split: ranges.map((range) => range.end - range.start),
      latency: spread(latency),
      slowestCompute: spread(slowest),
      exact,
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.close()))
  }
}
