import { basename } from 'node:path'
import { describeParams, HeError } from '@sealbox/he-core'
import {
  type SearchConfig,
  type SearchProcessedMemory,
  searchDatabaseFormatOf,
  searchMemoryPlace,
  searchProcessedMemory,
  searchShardOf,
} from '@sealbox/he-core/search'
import type { DatabaseSource, WorkerSetup } from '../executor/WorkerSetup.ts'
import { readSearchDatabaseShape } from './readSearchDatabaseShape.ts'
import { searchConfigFor } from './searchConfigFor.ts'

const MiB = 2 ** 20
/** What a worker's SEAL heap holds besides the processed database (SEAL, the context, a query): measured 60 MiB. */
export const FRESH_HEAP_MARGIN_BYTES = 64 * MiB

/** What the main process learned of the database before any worker loads it. */
export interface CheckedSearchDatabase {
  rows: number
  dimension: number
  config: SearchConfig
  /**
   * Bytes of one processed copy (`memory.form`): u32 residues in the node's shared
   * diagonal memory where the key-switching kernel runs, SEAL plaintexts in each worker's
   * heap elsewhere.
   */
  processedBytes: number
  /** What one copy holds and where, as he-core counts it. */
  memory: SearchProcessedMemory
}

function nameOf(source: DatabaseSource): string {
  if (source.type === 'file') return basename(source.path)
  return source.type === 'synthetic' ? `synthetic (SYNTHETIC_ROWS=${source.rows}, SYNTHETIC_DIM=${source.dim})` : 'demo'
}

function mib(bytes: number): string {
  return `${Math.ceil(bytes / MiB)} MiB`
}

/**
 * Refuses, from its shape alone, a database the settings cannot serve — before any
 * process loads it: a file's shape comes from its .npy header (or one streamed pass
 * over CSV/JSONL), a synthetic one's from its settings. What is counted is what is held
 * (he-core's `searchProcessedMemory`): where the search runs in the key-switching kernel,
 * processing streams every diagonal into the kernel's diagonal memory as u32 residues —
 * one copy per node shared by the worker threads (one per process under EXECUTOR=process),
 * up to SEARCH_MAX_KERNEL_DIAGONAL_BYTES — and a worker's SEAL heap holds one plaintext
 * of it at a time; elsewhere (BFV, coefficient form, primes of 31 bits or more) SEAL's
 * plaintexts stay in every worker's heap, up to SEARCH_MAX_PROCESSED_BYTES. Refused: a
 * shape no search config accepts (he-core's limits), a shard above its form's limit, and
 * a processed database whose SEAL share would leave a fresh worker's heap above
 * WORKER_HEAP_RECYCLE_BYTES (the worker would be replaced, and the database processed
 * again, after every query). The messages give the numbers and the setting to change;
 * every refusal has `details.refused = 'database'`.
 */
export async function checkSearchDatabase(
  setup: Pick<WorkerSetup, 'database' | 'search' | 'heapRecycleBytes' | 'shard'>,
): Promise<CheckedSearchDatabase> {
  const source = setup.database
  const name = nameOf(source)
  let shape: { rows: number; dimension: number }
  if (source.type === 'file') {
    const format = searchDatabaseFormatOf(source.path)
    if (!format) {
      throw new HeError('INVALID_INPUT', `DATABASE ${name}: use a .jsonl, .csv or .npy file (or "demo" or "synthetic")`)
    }
    shape = await readSearchDatabaseShape(source.path, format)
  } else if (source.type === 'synthetic') {
    shape = { rows: source.rows, dimension: source.dim }
  } else {
    // 118 rows of 256 numbers, built into he-core: nothing to refuse.
    shape = { rows: 118, dimension: 256 }
  }
  const what = `DATABASE ${name} (V=${shape.rows} rows × D=${shape.dimension}, from its ${source.type === 'file' ? 'header' : 'settings'})`
  let config: SearchConfig
  try {
    config = searchConfigFor(setup.search, shape, setup.shard)
  } catch (error) {
    const heError = error instanceof HeError ? error : undefined
    if (heError?.code === 'LIMIT_EXCEEDED') {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `${what} is refused: ${heError.message}. Serve fewer rows (split the database across nodes) or a smaller dimension`,
        { cause: error, details: { ...heError.details, refused: 'database' } },
      )
    }
    throw new HeError(heError?.code ?? 'INVALID_INPUT', `${what} is refused: ${(error as Error).message}`, {
      cause: error,
      details: { refused: 'database' },
    })
  }
  // A shard's workers hold its blocks only (an S above the blocks is refused here, before any worker starts).
  const shard = setup.shard ? searchShardOf(config, setup.shard) : undefined
  const held = shard ? config.blocks.slice(shard.blocks.start, shard.blocks.end) : config.blocks
  const memory = searchProcessedMemory(config, held)
  const processedBytes = memory.bytes
  const where = searchMemoryPlace(memory)
  if (shard && processedBytes > memory.limit) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `${what} is refused: shard ${shard.index}/${shard.count} holds ${mib(processedBytes)} ${where}, above the ${mib(memory.limit)} one WebAssembly memory can hold; use more shards`,
      { details: { refused: 'database', processedBytes, limit: memory.limit, form: memory.form } },
    )
  }
  const needed = memory.sealPeakBytes + FRESH_HEAP_MARGIN_BYTES
  if (needed > setup.heapRecycleBytes) {
    const primes = config.nttForm ? describeParams(config.params).dataPrimeCount : 1
    // Held where the form holds it: all of it in SEAL's heap, or one plaintext at a time while it streams into the kernel.
    const inHeap =
      memory.form === 'kernel'
        ? `of which each worker's SEAL heap holds ${mib(memory.sealPeakBytes)} while processing (one plaintext at a time)`
        : "all of which stays in each worker's SEAL heap"
    throw new HeError(
      'LIMIT_EXCEEDED',
      `${what} is refused: its processed database is ${mib(processedBytes)} ${where} (${held.length} blocks, ${memory.diagonals} diagonals × ${primes} primes × n=${config.polyModulusDegree}), ${inHeap}; with SEAL's own ${mib(FRESH_HEAP_MARGIN_BYTES)} that is ${mib(needed)}, above WORKER_HEAP_RECYCLE_BYTES (${mib(setup.heapRecycleBytes)}), so every worker would be replaced and the database processed again after every query. Raise WORKER_HEAP_RECYCLE_BYTES to at least ${mib(needed)} (and WORKER_HEAP_BYTES above it, at most 4096 MiB), or serve fewer rows`,
      {
        details: {
          refused: 'database',
          setting: 'WORKER_HEAP_RECYCLE_BYTES',
          processedBytes,
          form: memory.form,
          limit: setup.heapRecycleBytes,
        },
      },
    )
  }
  return { rows: shape.rows, dimension: shape.dimension, config, processedBytes, memory }
}
