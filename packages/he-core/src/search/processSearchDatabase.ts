import type { Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { adopt, disown, type SealHandle, withScope } from '../scope/SealScope.ts'
import { scaleWholeDatabase } from './clusterSearchDatabase.ts'
import type { SearchBlockCache, SearchProcessingProgress } from './SearchBlockCache.ts'
import type { SearchClustering } from './SearchClustering.ts'
import { type SearchConfig, searchShapeOf } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { ProcessedSearchBlock } from './SearchKernel.ts'
import { isSearchRowSource, type SearchRowSource, searchRowSourceOf } from './SearchRowSource.ts'
import { scaleSearchRows } from './scaleVectors.ts'
import { chunkDiagonals, clusterChunkRows } from './searchClusterLayout.ts'
import { diagonalSlots, type SearchBlock } from './searchLayout.ts'

/** How long processing took and what it produced. */
export interface SearchProcessingReport {
  milliseconds: number
  /** Encoded plaintexts kept (Σ over blocks of the diagonals). */
  plaintexts: number
  /**
   * Their size where they are held: in SEAL's heap n × 8 bytes × (data primes in NTT form,
   * 1 in coefficient form); streamed into a kernel's diagonal memory (`form: 'kernel'`),
   * n × 4 bytes × data primes.
   */
  bytes: number
  /** Where the diagonals went: SEAL plaintexts (`seal`) or a kernel's diagonal memory (`kernel`). */
  form: SearchDiagonalForm
  nttForm: boolean
  blocks: number[]
  /** Blocks read from a processed-database cache instead of encoded. */
  cachedBlocks: number
}

/** Where processed diagonals are held: SEAL plaintexts, or u32 residues in a kernel's diagonal memory. */
export type SearchDiagonalForm = 'seal' | 'kernel'

/**
 * Takes each diagonal as soon as it is encoded, so SEAL's heap never holds more than the
 * one plaintext being encoded (the key-switching kernel's diagonal memory is one). Its
 * bytes, not SEAL's saves, are what a cache keeps for it.
 */
export interface SearchDiagonalSink {
  /** Bytes one diagonal takes in the sink. */
  readonly diagonalBytes: number
  /** A block starts: its `block.diagonals` diagonals follow (`put`). */
  beginBlock(block: SearchBlock): void
  /** Diagonal k of the current block, in processing order; the plaintext is reused after this returns. */
  put(k: number, plaintext: Plaintext): void
  /**
   * The block is complete: its bytes in the sink's form, one array per diagonal, for a
   * cache to keep (views the sink owns, valid until its next call).
   */
  endBlock(block: SearchBlock): readonly Uint8Array[]
  /** A block a cache kept in the sink's form (`endBlock`'s return): false when it is unusable, then it is encoded. */
  load(block: SearchBlock, saved: readonly Uint8Array[]): boolean
}

/** Options of `processSearchDatabase`. */
export interface ProcessSearchDatabaseOptions {
  /** Blocks to process (all by default). */
  range?: SearchBlockRange
  /** Where processed blocks are read from and written to. */
  cache?: SearchBlockCache
  /** Called after every block. */
  onProgress?: (progress: SearchProcessingProgress) => void
  /** Cluster-private configs: the clustering of this database (`clusterSearchDatabase`). */
  clustering?: SearchClustering
  /**
   * Streams every block into this sink (and the cache in its form) instead of keeping SEAL
   * plaintexts: the returned blocks hold no plaintext and `owned` receives nothing.
   */
  sink?: SearchDiagonalSink
}

/** A half-open range of block indices, for splitting one query across workers. */
export interface SearchBlockRange {
  start: number
  end: number
}

/** Throws PARAMS_MISMATCH unless `ctx` was built from the config's parameters. */
export function assertSearchContext(ctx: HeContext, config: SearchConfig): void {
  const same =
    ctx.params.scheme === config.params.scheme &&
    ctx.params.polyModulusDegree === config.params.polyModulusDegree &&
    ctx.params.security === config.params.security &&
    ctx.params.coeffModulusBits.join() === config.params.coeffModulusBits.join() &&
    ctx.plainModulus === BigInt(config.plainModulus)
  if (!same) {
    throw new HeError(
      'PARAMS_MISMATCH',
      `the context is ${ctx.scheme} n=${ctx.params.polyModulusDegree} [${ctx.params.coeffModulusBits.join(', ')}] t=${ctx.plainModulus}, the search config wants ${config.scheme} n=${config.polyModulusDegree} [${config.params.coeffModulusBits.join(', ')}] t=${config.plainModulus}`,
    )
  }
}

/** The blocks of `config` inside `range` (all by default); an empty or out-of-range range is an error. */
export function selectBlocks(config: SearchConfig, range: SearchBlockRange | undefined): SearchBlock[] {
  if (range === undefined) return config.blocks
  const { start, end } = range
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > config.blocks.length || start >= end) {
    throw new HeError(
      'INVALID_INPUT',
      `block range [${start}, ${end}) is not a non-empty range of the ${config.blocks.length} blocks`,
    )
  }
  return config.blocks.slice(start, end)
}

/**
 * Encodes every generalized diagonal of the selected blocks (pre-rotated for the giant
 * steps), in NTT form at the first data level unless the config says coefficient form,
 * one block of rows at a time: a row source is read block by block and its raw rows
 * dropped once encoded. Blocks the cache holds are loaded from it instead. The
 * plaintexts are adopted: `owned` receives them — unless a `sink` takes each block as it
 * is encoded, and its plaintexts are deleted before the next block is encoded.
 */
export function processSearchDatabase(
  ctx: HeContext,
  database: SearchDatabase | SearchRowSource,
  config: SearchConfig,
  owned: SealHandle[],
  options: ProcessSearchDatabaseOptions = {},
): { blocks: ProcessedSearchBlock[]; report: SearchProcessingReport } {
  assertSearchContext(ctx, config)
  const started = performance.now()
  const source = isSearchRowSource(database) ? database : searchRowSourceOf(database)
  const shape = searchShapeOf(config)
  const encoder = ctx.batchEncoder
  if (!encoder) throw new HeError('SCHEME_MISMATCH', 'private search needs BFV or BGV batching')
  const { cache, onProgress } = options
  const none = ctx.seal.ComprModeType.none
  const slots = new BigInt64Array(config.polyModulusDegree)
  const selected = selectBlocks(config, options.range)
  const blocks: ProcessedSearchBlock[] = []
  let count = 0
  let cachedBlocks = 0
  if (config.clusters && !options.clustering) {
    throw new HeError(
      'INVALID_INPUT',
      'a cluster-private config is processed with its clustering (clusterSearchDatabase)',
    )
  }
  // Cluster-private blocks gather rows from every cluster: the scaled database, once, if a block is encoded.
  let scaledAll: ReturnType<typeof scaleWholeDatabase> | undefined
  const progress = () =>
    onProgress?.({
      blocksDone: blocks.length,
      blocks: selected.length,
      fromCache: cachedBlocks,
      milliseconds: performance.now() - started,
    })
  withScope((scope) => {
    const firstParmsId = scope.track(ctx.context.firstParmsId())
    const expectedParms = Array.from(firstParmsId.values() as BigUint64Array).join()
    const fromCache = (block: SearchBlock, saves: readonly Uint8Array[]): Plaintext[][] | undefined => {
      if (saves.length !== block.diagonals) return undefined
      const loaded: Plaintext[] = []
      const handles: SealHandle[] = []
      const fits = (saved: Uint8Array): boolean => {
        const plaintext = new ctx.seal.Plaintext()
        handles.push(adopt(plaintext))
        loaded.push(plaintext)
        sealCall('load cached diagonal', () => plaintext.loadFromArray(ctx.context, saved))
        // The cache vouches for the bytes; SEAL's load and these checks for their meaning.
        if (plaintext.isNttForm() !== config.nttForm) return false
        if (!config.nttForm) return true
        const parms = plaintext.parmsId()
        const same = Array.from(parms.values() as BigUint64Array).join() === expectedParms
        parms.delete()
        return same
      }
      let usable = false
      try {
        usable = saves.every(fits)
      } catch {
        usable = false
      }
      if (!usable) {
        for (const handle of handles) disown(handle)
        return undefined
      }
      owned.push(...handles)
      return giantRows(config, block, loaded)
    }
    const sink = options.sink
    for (const block of selected) {
      const cached = cache?.read(block)
      if (sink && cached && sink.load(block, cached)) {
        cachedBlocks++
        cache?.write(block, cached, true)
        count += block.diagonals
        blocks.push({ block, plaintexts: [] })
        progress()
        continue
      }
      let plaintexts = !sink && cached ? fromCache(block, cached) : undefined
      if (plaintexts) {
        cachedBlocks++
        cache?.write(block, cached as readonly Uint8Array[], true)
      } else {
        const encoded: Plaintext[] = []
        // Streamed: each plaintext is deleted once the sink has its residues.
        sink?.beginBlock(block)
        let put = 0
        const encode = () => {
          const plaintext = adopt(new ctx.seal.Plaintext())
          if (!sink) owned.push(plaintext)
          try {
            sealCall('encode diagonal', () => {
              encoder.encode(slots, plaintext)
              if (config.nttForm) ctx.evaluator.plainTransformToNttInplace(plaintext, firstParmsId)
            })
            if (sink) sink.put(put++, plaintext)
            else encoded.push(plaintext)
          } finally {
            if (sink) disown(plaintext)
          }
        }
        const local = { ...block, firstRow: 0 }
        if (config.clusters) {
          // Chunk by chunk: one chunk's slab of the block's virtual rows at a time.
          const layout = config.clusters
          const d = config.dimension
          const members = (options.clustering as SearchClustering).members
          scaledAll ??= scaleWholeDatabase(config, source)
          const all = scaledAll
          const slab = new Int32Array(block.rows * layout.chunkWidth)
          const perChunk = chunkDiagonals(block, layout)
          const row = (r: number) => all.subarray(r * d, (r + 1) * d)
          for (let chunk = 0; chunk < layout.chunks; chunk++) {
            clusterChunkRows(layout, d, members, row, block.firstRow, block.rows, chunk, slab)
            for (let k = 0; k < perChunk; k++) {
              diagonalSlots(shape, local, slab, Math.floor(k / config.babyStep), k % config.babyStep, slots)
              encode()
            }
          }
        } else {
          // One block of rows at a time: its raw and scaled rows are garbage once encoded.
          const scaled = scaleSearchRows(config, source, block.firstRow, block.rows)
          for (let b = 0; b < block.giantSteps; b++) {
            for (let a = 0; a < config.babyStep && b * config.babyStep + a < block.diagonals; a++) {
              diagonalSlots(shape, local, scaled, b, a, slots)
              encode()
            }
          }
        }
        if (sink) {
          // The cache keeps the sink's form.
          const stored = sink.endBlock(block)
          cache?.write(block, stored, false)
          plaintexts = []
        } else {
          plaintexts = giantRows(config, block, encoded)
        }
        if (!sink && cache) {
          const saves = encoded.map((plaintext) =>
            sealCall('save diagonal', () => plaintext.saveToArray(none) as Uint8Array),
          )
          cache.write(block, saves, false)
        }
      }
      count += block.diagonals
      blocks.push({ block, plaintexts })
      progress()
    }
  })
  const primes = config.nttForm ? ctx.facts.dataPrimeCount : 1
  const sink = options.sink
  return {
    blocks,
    report: {
      milliseconds: performance.now() - started,
      plaintexts: count,
      bytes: sink ? count * sink.diagonalBytes : count * config.polyModulusDegree * 8 * primes,
      form: sink ? 'kernel' : 'seal',
      nttForm: config.nttForm,
      blocks: blocks.map(({ block }) => block.index),
      cachedBlocks,
    },
  }
}

/**
 * A block's diagonals, in order, cut into rows of g (one per giant step). Cluster-private
 * blocks are stored chunk by chunk; giant step b's row is every chunk's g diagonals of b,
 * chunk-major (the kernels' baby set is in the same order).
 */
export function giantRows<T>(config: SearchConfig, block: SearchBlock, flat: T[]): T[][] {
  const rows: T[][] = []
  const layout = config.clusters
  if (layout) {
    const g = config.babyStep
    const perChunk = chunkDiagonals(block, layout)
    for (let b = 0; b < block.giantSteps; b++) {
      const row: T[] = []
      for (let chunk = 0; chunk < layout.chunks; chunk++) {
        row.push(...flat.slice(chunk * perChunk + b * g, chunk * perChunk + (b + 1) * g))
      }
      rows.push(row)
    }
    return rows
  }
  for (let b = 0; b < block.giantSteps; b++) rows.push(flat.slice(b * config.babyStep, (b + 1) * config.babyStep))
  return rows
}
