import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { galoisElementOf, getHeContext, type HeContext, HeError } from '@sealbox/he-core'
import type { SearchDatabaseSource } from '@sealbox/he-core/client'
import {
  DEMO_DATABASE_NAME,
  demoSearchDatabase,
  PrivateSearchIndex,
  parseSearchDatabase,
  plannedSearchKernel,
  type SearchBlockRange,
  type SearchConfig,
  type SearchDatabase,
  type SearchEvaluation,
  type SearchKeys,
  type SearchProcessingProgress,
  type SearchRowSource,
  type SearchShard,
  searchDatabaseFormatOf,
  searchShardOf,
  syntheticSearchRows,
} from '@sealbox/he-core/search'
import { DiagonalMemory } from '@sealbox/he-ring'
import type { SearchSummary, ServedSearchCatalog } from '../app/SearchSummary.ts'
import { clusteredContentHash, loadSearchClustering } from '../database/loadSearchClustering.ts'
import { NpyRowSource } from '../database/NpyRowSource.ts'
import { type ProcessedCacheReport, ProcessedDatabaseCache } from '../database/ProcessedDatabaseCache.ts'
import { searchConfigFor } from '../database/searchConfigFor.ts'
import type { DatabaseSource, WorkerSetup } from '../executor/WorkerSetup.ts'

/** A database to process: rows read in place (a .npy file) or held in memory (the rest). */
type LoadedDatabase =
  | { type: 'rows'; source: SearchRowSource & { close?(): void }; catalog: ServedSearchCatalog }
  | { type: 'memory'; database: SearchDatabase }

async function loadDatabase(source: DatabaseSource): Promise<LoadedDatabase> {
  if (source.type === 'file' && searchDatabaseFormatOf(source.path) === 'npy') {
    const rows = NpyRowSource.open(source.path)
    return { type: 'rows', source: rows, catalog: { ids: Array.from({ length: rows.rows }, (_, row) => row) } }
  }
  if (source.type === 'synthetic') {
    // Made a block at a time as processing reads it: never the whole 4 bytes × V × D of floats at once.
    const rows = syntheticSearchRows({ rows: source.rows, dimension: source.dim, seed: source.seed })
    return { type: 'rows', source: rows, catalog: { ids: Array.from({ length: rows.rows }, (_, row) => row) } }
  }
  return { type: 'memory', database: await loadDatabaseInMemory(source) }
}

async function loadDatabaseInMemory(source: Exclude<DatabaseSource, { type: 'synthetic' }>): Promise<SearchDatabase> {
  if (source.type === 'demo') return demoSearchDatabase()
  const format = searchDatabaseFormatOf(source.path)
  if (!format) {
    throw new HeError(
      'INVALID_INPUT',
      `DATABASE ${source.path}: use a .jsonl, .csv or .npy file (or "demo" or "synthetic")`,
    )
  }
  let bytes: Buffer
  try {
    bytes = await readFile(source.path)
  } catch (error) {
    throw new HeError('INVALID_INPUT', `DATABASE ${source.path} cannot be read: ${(error as Error).message}`, {
      cause: error,
    })
  }
  return parseSearchDatabase(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), format)
}

function catalogOf(loaded: LoadedDatabase): ServedSearchCatalog {
  if (loaded.type === 'rows') return loaded.catalog
  const { ids, metadata } = loaded.database
  return { ids, ...(metadata ? { metadata: metadata.map((entry) => entry ?? null) } : {}) }
}

/** What clients learn of the source: the file's name only, its path on the server is nobody's business. */
function servedSourceOf(source: DatabaseSource): SearchDatabaseSource {
  if (source.type === 'synthetic') {
    return { type: 'synthetic', seed: source.seed, rows: source.rows, dimension: source.dim }
  }
  if (source.type === 'demo') {
    // Cheap (118 rows of 256 numbers): one definition of the demo's shape.
    const { rows, dimension } = demoSearchDatabase()
    return { type: 'demo', name: DEMO_DATABASE_NAME, rows, dimension }
  }
  const format = searchDatabaseFormatOf(source.path)
  // loadDatabase refused a file without a known format before the service was built.
  if (!format) throw new HeError('INTERNAL', `DATABASE ${basename(source.path)} has no known format`)
  return { type: 'file', name: basename(source.path), format }
}

/** How a search job evaluates a query: the blocks of its part, and the request's opt-in to dropped bits. */
export interface SearchServiceEvaluateOptions {
  /** Only these blocks (one part of a split query); all by default. */
  blocks?: SearchBlockRange
  /** The request accepts response blocks that drop low-order bits; required, so no caller forgets it. */
  droppedBits: boolean
}

/**
 * The server half of private search in one worker: the search config, its context
 * and the database processed once into NTT-form diagonals at warm-up, shared by
 * every query of every tenant (he-core's `PrivateSearchIndex`).
 */
export class SearchService {
  readonly ctx: HeContext
  readonly config: SearchConfig
  readonly index: PrivateSearchIndex
  readonly summary: SearchSummary
  /** Galois elements a query needs (empty: no evaluation keys needed). */
  readonly galoisElements: readonly number[]
  /** Public ids and metadata of the rows (what clients name hits with). */
  readonly catalog: ServedSearchCatalog
  /** How the processed-database cache served this warm-up (undefined: no cache). */
  readonly cache: ProcessedCacheReport | undefined
  /** True when this worker attached to diagonals another thread of the node processed. */
  readonly attached: boolean

  private constructor(
    ctx: HeContext,
    config: SearchConfig,
    index: PrivateSearchIndex,
    source: DatabaseSource,
    catalog: ServedSearchCatalog,
    cache: ProcessedCacheReport | undefined,
    attached: boolean,
    shard: SearchShard | undefined,
  ) {
    this.attached = attached
    this.ctx = ctx
    this.config = config
    this.index = index
    const n = config.polyModulusDegree
    this.galoisElements = config.galoisSteps.map((step) => galoisElementOf(n, step))
    this.catalog = catalog
    this.cache = cache
    this.summary = {
      configId: config.configId,
      fingerprint: ctx.fingerprint,
      galoisElements: [...this.galoisElements],
      keyForm: index.kernel === 'keySwitch' ? 'kernel' : 'seal',
      queryCiphertexts: config.queryCiphertexts,
      config,
      database: {
        source: servedSourceOf(source),
        rows: config.rows,
        dimension: config.dimension,
        processing: { ...index.processing },
      },
      ...(index.clustering ? { clustering: index.clustering } : {}),
      ...(shard ? { shard } : {}),
    }
  }

  get configId(): string {
    return this.config.configId
  }

  /**
   * Loads and processes the configured database (the slow part of warm-up): a .npy
   * file is read a block of rows at a time and its raw rows dropped once encoded; with
   * a cache, blocks processed by an earlier start are read back (checked) instead.
   */
  static async create(
    setup: WorkerSetup,
    options: {
      onProgress?: (progress: SearchProcessingProgress) => void
      /**
       * The node's shared diagonal memory (a worker thread's `workerData`) and this
       * thread's nonzero id in it: the first thread to claim it processes the database
       * into it, every other thread (and every replacement) attaches to that one copy.
       */
      shared?: { memory: WebAssembly.Memory; builder: number }
    } = {},
  ): Promise<SearchService> {
    const shared = options.shared && DiagonalMemory.attach(options.shared.memory)
    if (shared && options.shared) {
      for (;;) {
        const state = await shared.whenSettled()
        if (state === 'ready') return SearchService.#attach(setup, shared)
        if (state === 'unused') break
        if (shared.claim(options.shared.builder)) {
          try {
            return await SearchService.#process(setup, { ...options, diagonals: shared })
          } catch (error) {
            shared.release(options.shared.builder)
            throw error
          }
        }
      }
    }
    return SearchService.#process(setup, options)
  }

  /** A worker of a node whose diagonals another thread processed: the catalog and config only, no processing. */
  static async #attach(setup: WorkerSetup, diagonals: DiagonalMemory): Promise<SearchService> {
    const source = setup.database
    if (source.type === 'synthetic') {
      // Its shape and ids (0…V−1) are its settings: no vector is generated here.
      const shape = { rows: source.rows, dimension: source.dim }
      const catalog = { ids: Array.from({ length: source.rows }, (_, row) => row) }
      return SearchService.#attachShaped(setup, diagonals, shape, catalog)
    }
    // A .npy file is opened for its header only; other formats are small (parsed whole, as before).
    const loaded = await loadDatabase(source)
    try {
      const shape = loaded.type === 'rows' ? loaded.source : loaded.database
      return await SearchService.#attachShaped(setup, diagonals, shape, catalogOf(loaded))
    } finally {
      if (loaded.type === 'rows') loaded.source.close?.()
    }
  }

  static async #attachShaped(
    setup: WorkerSetup,
    diagonals: DiagonalMemory,
    shape: { rows: number; dimension: number },
    catalog: ServedSearchCatalog,
  ): Promise<SearchService> {
    const config = searchConfigFor(setup.search, shape, setup.shard)
    const shard = setup.shard ? searchShardOf(config, setup.shard) : undefined
    const ctx = await getHeContext(config.params)
    const index = PrivateSearchIndex.attach(ctx, config, diagonals)
    return new SearchService(ctx, config, index, setup.database, catalog, undefined, true, shard)
  }

  static async #process(
    setup: WorkerSetup,
    options: { onProgress?: (progress: SearchProcessingProgress) => void; diagonals?: DiagonalMemory },
  ): Promise<SearchService> {
    const loaded = await loadDatabase(setup.database)
    let cache: ProcessedDatabaseCache | undefined
    try {
      const rows: SearchRowSource | SearchDatabase = loaded.type === 'rows' ? loaded.source : loaded.database
      const config = searchConfigFor(setup.search, rows, setup.shard)
      if (config.polyModulusDegree > setup.maxPolyDegree) {
        throw new HeError('INVALID_INPUT', `the search needs n=${config.polyModulusDegree}, above MAX_POLY_DEGREE`)
      }
      // A shard plans the whole database's config and processes its blocks of it only.
      const shard = setup.shard ? searchShardOf(config, setup.shard) : undefined
      const ctx = await getHeContext(config.params)
      const contentHash = setup.searchCache?.contentHash ?? ''
      // Cluster-private: the clustering first (read from the cache directory when kept there).
      const clustered = config.clusters
        ? loadSearchClustering(setup.searchCache?.dir, contentHash, config, rows)
        : undefined
      if (setup.searchCache) {
        const primes = config.nttForm ? ctx.facts.dataPrimeCount : 1
        const widest = Math.max(...config.blocks.map((block) => block.diagonals))
        // Streamed into the key-switching kernel, the file keeps its u32 residues (no SEAL header).
        const form = plannedSearchKernel(ctx, config, 'auto') === 'keySwitch' ? 'kernel' : 'seal'
        const diagonalBytes =
          form === 'kernel' ? config.polyModulusDegree * 4 * primes : config.polyModulusDegree * 8 * primes + 4096
        cache = new ProcessedDatabaseCache(setup.searchCache.dir, {
          // A shard's file holds its blocks only: named apart from the whole database's.
          contentHash: clustered ? clusteredContentHash(contentHash, clustered.clustering) : contentHash,
          configId: shard ? `${config.configId}-shard${shard.index}of${shard.count}` : config.configId,
          fingerprint: ctx.fingerprint,
          nttForm: config.nttForm,
          form,
          blocks: shard ? shard.blocks.end - shard.blocks.start : config.blocks.length,
          // SEAL's save header is ~100 bytes: 4 KiB per plaintext is a loose bound.
          maxBlockBytes: widest * (diagonalBytes + 4),
        })
      }
      const index = PrivateSearchIndex.process(ctx, rows, config, {
        ...(clustered ? { clustering: clustered.clustering } : {}),
        ...(shard ? { blocks: shard.blocks } : {}),
        ...(cache ? { cache } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.diagonals ? { diagonals: options.diagonals } : {}),
      })
      const report = cache?.finish()
      return new SearchService(ctx, config, index, setup.database, catalogOf(loaded), report, false, shard)
    } catch (error) {
      cache?.abort()
      throw error
    } finally {
      if (loaded.type === 'rows') loaded.source.close?.()
    }
  }

  /**
   * Evaluates one query envelope (everything is verified before SEAL runs), over `blocks` only
   * when given; response blocks drop low-order bits only when `droppedBits` (the request's opt-in).
   */
  evaluate(query: Uint8Array, keys: SearchKeys | null, options: SearchServiceEvaluateOptions): SearchEvaluation {
    return this.index.evaluate(query, keys, options)
  }

  dispose(): void {
    this.index.dispose()
  }
}
