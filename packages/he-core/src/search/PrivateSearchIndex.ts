import type { DiagonalMemory } from '@sealbox/he-ring'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { packSealCiphertext } from '../envelope/packSealCiphertext.ts'
import { sealCompressionMode } from '../envelope/saveSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import { toHeError } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { disown, type SealHandle, withScope } from '../scope/SealScope.ts'
import { checkQueryCiphertext } from './checkQueryCiphertext.ts'
import { checkSearchKeys } from './checkSearchKeys.ts'
import { chooseSearchKernel, plannedSearchKernel } from './chooseSearchKernel.ts'
import { clusterSearchDatabase } from './clusterSearchDatabase.ts'
import { KeySwitchSearch } from './keySwitchSearchKernel.ts'
import {
  assertSearchContext,
  type ProcessSearchDatabaseOptions,
  processSearchDatabase,
  type SearchBlockRange,
  type SearchProcessingReport,
  selectBlocks,
} from './processSearchDatabase.ts'
import type { SearchBatchItem, SearchBatchResult } from './SearchBatchItem.ts'
import { checkSearchClustering, type SearchClustering } from './SearchClustering.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { SearchEvaluateOptions, SearchEvaluation, SearchEvaluationTimings } from './SearchEvaluation.ts'
import type { ProcessedSearchBlock, SearchKernel, SearchKernelChoice, SearchKernelName } from './SearchKernel.ts'
import type { SearchKeys } from './SearchKeys.ts'
import type { SearchRowSource } from './SearchRowSource.ts'
import { type SearchResponseDroppedBits, searchResponseDroppedBits } from './searchResponseDroppedBits.ts'
import { decodeSearchQuery, encodeSearchResponse, type WireCiphertext } from './searchWire.ts'
import { decodeSharedDiagonals, encodeSharedDiagonals } from './sharedDiagonalsMetadata.ts'

const wallClock = () => performance.now()

/**
 * The server half of private search: a database processed once into encoded
 * diagonals, then any number of encrypted queries from any number of users.
 * `evaluate` is re-entrant: it keeps no per-query state, and every temporary SEAL
 * object it makes is deleted before it returns (or throws). The index owns its
 * plaintexts; `dispose()` frees them.
 *
 * ```ts
 * const index = PrivateSearchIndex.process(ctx, database, config)
 * const { response, timings } = index.evaluate(queryBytes, keysOrNull)
 * ```
 */
export class PrivateSearchIndex implements Disposable {
  readonly ctx: HeContext
  readonly config: SearchConfig
  readonly processing: SearchProcessingReport
  /**
   * Cluster-private configs: the public clustering (centroids, members) the index was
   * processed with; publish it with the config. Undefined in exact mode.
   */
  readonly clustering: SearchClustering | undefined
  /**
   * Low-order bits each packed response block drops off c0 and c1, and the noise bound that
   * set them (`searchResponseDroppedBits`; [0, 0] with a reason when none may go).
   */
  readonly responseDroppedBits: SearchResponseDroppedBits
  readonly #blocks: ProcessedSearchBlock[]
  readonly #owned: SealHandle[]
  readonly #kernel: SearchKernel
  #disposed = false

  private constructor(
    ctx: HeContext,
    config: SearchConfig,
    blocks: ProcessedSearchBlock[],
    report: SearchProcessingReport,
    owned: SealHandle[],
    kernel: SearchKernel,
    clustering: SearchClustering | undefined,
  ) {
    this.ctx = ctx
    this.config = config
    this.#blocks = blocks
    this.processing = report
    this.#owned = owned
    this.#kernel = kernel
    this.clustering = clustering
    this.responseDroppedBits = searchResponseDroppedBits(ctx, config)
  }

  /**
   * Processes `database` for `config` (all blocks, or `blocks` only — a worker that
   * serves part of every query). `ctx` must be built from `config.params`.
   * `kernel: 'seal'` keeps every product and rotation in SEAL (benchmarks compare it with
   * the default, which runs the search in one of he-core's WebAssembly kernels where one
   * applies: see `kernel`). A row source is read one block of rows at a time; `cache`
   * supplies blocks processed before and keeps the new ones; `onProgress` hears of each block.
   *
   * `diagonals`, a diagonal memory this thread has `claim`ed (shared by a node's worker
   * threads): the key-switching kernel writes the diagonals there, and on success the
   * memory is published — `ready` with their layout when that kernel runs the search, so
   * other threads `attach` instead of processing; `unused` otherwise. On failure the
   * claim is the caller's to `release`.
   *
   * A cluster-private config clusters the database first (`clusterSearchDatabase`) unless
   * `clustering` brings that clustering (a server computes it once and hands it to workers).
   */
  static process(
    ctx: HeContext,
    database: SearchDatabase | SearchRowSource,
    config: SearchConfig,
    options: { blocks?: SearchBlockRange; kernel?: SearchKernelChoice; diagonals?: DiagonalMemory } & Omit<
      ProcessSearchDatabaseOptions,
      'range'
    > = {},
  ): PrivateSearchIndex {
    const owned: SealHandle[] = []
    try {
      const clustering = config.clusters
        ? checkSearchClustering(config, options.clustering ?? clusterSearchDatabase(config, database))
        : undefined
      if (!config.clusters && options.clustering) {
        throw new HeError('INVALID_INPUT', `search config ${config.configId} is exact: it takes no clustering`)
      }
      const choice = options.kernel ?? 'auto'
      // The key-switching kernel takes each block as it is encoded: no SEAL heap ever holds the database.
      const streamed = plannedSearchKernel(ctx, config, choice) === 'keySwitch'
      const streaming = streamed ? KeySwitchSearch.begin(ctx, config, options.diagonals) : undefined
      const { blocks, report } = processSearchDatabase(ctx, database, config, owned, {
        ...(clustering ? { clustering } : {}),
        ...(options.blocks ? { range: options.blocks } : {}),
        ...(options.cache ? { cache: options.cache } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(streaming ? { sink: streaming.sink } : {}),
      })
      const kernel = streaming ?? chooseSearchKernel(ctx, config, blocks, choice, options.diagonals)
      const diagonals = options.diagonals
      if (diagonals) {
        if (kernel instanceof KeySwitchSearch && kernel.diagonalMemory === diagonals) {
          diagonals.publish(
            encodeSharedDiagonals({ layout: kernel.layout(), report, ...(clustering ? { clustering } : {}) }),
          )
        } else {
          diagonals.publishUnused()
        }
      }
      if (!kernel.ownsDiagonals) return new PrivateSearchIndex(ctx, config, blocks, report, owned, kernel, clustering)
      // The kernel holds its own copy of every diagonal: SEAL's are never used again.
      for (const handle of owned.splice(0)) disown(handle)
      const held = blocks.map(({ block }) => ({ block, plaintexts: [] }))
      return new PrivateSearchIndex(ctx, config, held, report, owned, kernel, clustering)
    } catch (error) {
      for (const handle of owned) disown(handle)
      throw toHeError(error, 'process search database')
    }
  }

  /**
   * The index over diagonals another thread processed into the shared `diagonals` (its
   * `process` published them: state `ready`). Nothing is encoded and SEAL holds no
   * plaintext here: this thread's kernel keeps only its tables, keys and scratch.
   * `processing` is the report of the thread that processed them.
   */
  static attach(ctx: HeContext, config: SearchConfig, diagonals: DiagonalMemory): PrivateSearchIndex {
    try {
      assertSearchContext(ctx, config)
      const shared = decodeSharedDiagonals(diagonals.metadata())
      const { layout, report } = shared
      // A cluster-private config's clustering travels with the diagonals it ordered.
      const clustering = config.clusters ? checkSearchClustering(config, shared.clustering) : undefined
      if (!config.clusters && shared.clustering !== undefined) {
        throw new HeError(
          'INVALID_INPUT',
          `search config ${config.configId} is exact; the shared diagonals are clustered`,
        )
      }
      const kernel = KeySwitchSearch.attach(ctx, config, diagonals, layout)
      const held = new Set(layout.blocks.map(({ index }) => index))
      const blocks = selectBlocks(config, undefined)
        .filter((block) => held.has(block.index))
        .map((block) => ({ block, plaintexts: [] }))
      return new PrivateSearchIndex(ctx, config, blocks, report, [], kernel, clustering)
    } catch (error) {
      throw toHeError(error, 'attach to the shared diagonals')
    }
  }

  /**
   * The processed diagonals outside SEAL's heap and the kernel's own: their bytes and
   * whether other threads share them (count them once per node then). Undefined when the
   * kernel holds no such copy (SEAL's plaintexts, or the sums kernel's own heap).
   */
  get diagonals(): { bytes: number; shared: boolean } | undefined {
    const kernel = this.#kernel
    if (!(kernel instanceof KeySwitchSearch)) return undefined
    return { bytes: kernel.diagonalMemory.bytes, shared: kernel.diagonalMemory.shared }
  }

  /**
   * What runs the search: `dyadic` (he-ring's sums kernel: no rotation, BGV in NTT form,
   * data primes below 2^32), `keySwitch` (he-ring's key-switching kernel: rotations too,
   * BGV in NTT form, every prime and t below 2^31) or `seal` (SEAL's evaluator:
   * everything else, and `kernel: 'seal'`).
   */
  get kernel(): SearchKernelName {
    return this.#kernel.name
  }

  /**
   * Bytes of WebAssembly memory the index's kernel holds of its own, outside SEAL's heap:
   * its tables and scratch, the current user's key words, and (the sums kernel) its copy
   * of every diagonal; the key-switching kernel's diagonals are counted in `diagonals`. It
   * is reserved when the index is processed and does not grow with queries or users. 0
   * when SEAL's evaluator runs the search (the diagonals are then SEAL plaintexts, in the
   * heap `wasmHeapBytes` reports).
   */
  get heapBytes(): number {
    return this.#kernel.heapBytes
  }

  /** Block indices this index holds. */
  get blocks(): number[] {
    return this.#blocks.map(({ block }) => block.index)
  }

  /**
   * Evaluates one query envelope and returns the response envelope. Everything is
   * checked before SEAL runs: params (PARAMS_MISMATCH), config and ciphertext count
   * (INVALID_INPUT), the keys' key set (KEY_SET_MISMATCH) and Galois steps (MISSING_KEY).
   */
  evaluate(query: BytesLike, keys: SearchKeys | null, options: SearchEvaluateOptions = {}): SearchEvaluation {
    this.#assertLive()
    const now = options.clock ?? wallClock
    const started = now()
    const { config, ctx } = this
    const decoded = decodeSearchQuery(query, {
      fingerprint: ctx.fingerprint,
      configId: config.configId,
      count: config.queryCiphertexts,
    })
    checkSearchKeys(ctx, config, this.kernel, decoded.keySetId, keys)
    const blocks = this.#selectBlocks(options.blocks)
    const decodedAt = now()
    const timings: SearchEvaluationTimings = {
      decodeMs: decodedAt - started,
      loadMs: 0,
      computeMs: 0,
      saveMs: 0,
      totalMs: 0,
    }
    const results: (WireCiphertext & { index: number })[] = []
    withScope((scope) => {
      // Unseeded, uncompressed queries go straight into he-ring's kernels; the rest through SEAL's load.
      const kernel = this.#kernel
      const direct = kernel.loadDirect(decoded.items)
      const ciphertexts = direct
        ? []
        : decoded.items.map((item) => {
            const ciphertext = scope.track(new ctx.seal.Ciphertext())
            loadSealObject(ciphertext, ctx, item, { kind: 'ciphertext' }, { maxCiphertextSize: 2 })
            return ciphertext
          })
      for (const ciphertext of ciphertexts) checkQueryCiphertext(ctx, config, ciphertext)
      if (!direct) kernel.loadQuery(ctx, ciphertexts, decoded.items)
      const loadedAt = now()
      timings.loadMs = loadedAt - decodedAt
      const packed = config.responseCompression === 'packed'
      const mode = sealCompressionMode(packed ? 'none' : config.responseCompression)
      const dropBits = this.responseDroppedBits.bits
      const dropping = packed && options.droppedBits !== false && (dropBits[0] !== 0 || dropBits[1] !== 0)
      // Bits are dropped in coefficient form, where rounding adds only a small error: the
      // kernel's own transforms where it has them, SEAL's otherwise.
      const transformed = dropping ? scope.track(new ctx.seal.Ciphertext()) : undefined
      try {
        kernel.run({
          ctx,
          config,
          blocks,
          query: ciphertexts,
          galoisKeys: keys?.galoisKeys,
          kernelKeys: keys?.kernelWords,
          scope,
          coefficientForm: dropping,
          onBlock: (block, result, coefficients) => {
            const saveStart = now()
            let saved = coefficients
            if (!saved) {
              if (transformed) ctx.evaluator.cipherTransformFromNtt(result, transformed)
              saved = (transformed ?? result).saveToArray(mode) as Uint8Array
            }
            results.push({
              index: block.index,
              payload: packed ? packSealCiphertext(ctx, saved, dropping ? { dropBits } : {}) : saved,
              seeded: false,
              level: 0,
            })
            timings.saveMs += now() - saveStart
          },
        })
      } catch (error) {
        throw toHeError(error, 'search evaluation', 'SEAL_ERROR')
      }
      timings.computeMs = now() - loadedAt - timings.saveMs
    })
    const encodeStart = now()
    const response = encodeSearchResponse(
      { fingerprint: ctx.fingerprint, keySetId: decoded.keySetId, configId: config.configId },
      results,
    )
    const finished = now()
    timings.saveMs += finished - encodeStart
    timings.totalMs = finished - started
    return { response, blocks: results.map((r) => r.index), keySetId: decoded.keySetId, timings }
  }

  /**
   * Several independent queries against the shared database, each with its own
   * user's keys and its own timings. A failing query does not stop the others.
   */
  evaluateBatch(items: readonly SearchBatchItem[], options: SearchEvaluateOptions = {}): SearchBatchResult[] {
    return items.map(({ query, keys }) => {
      try {
        return { ok: true, evaluation: this.evaluate(query, keys, options) }
      } catch (error) {
        return { ok: false, error: toHeError(error, 'search query') }
      }
    })
  }

  #selectBlocks(range: SearchBlockRange | undefined): ProcessedSearchBlock[] {
    if (range === undefined) return this.#blocks
    const wanted = new Set(selectBlocks(this.config, range).map((block) => block.index))
    const held = this.#blocks.filter(({ block }) => wanted.has(block.index))
    if (held.length !== wanted.size) {
      throw new HeError(
        'INVALID_INPUT',
        `blocks [${range.start}, ${range.end}) are not all processed here (this index holds ${this.blocks.join(', ')})`,
      )
    }
    return held
  }

  get disposed(): boolean {
    return this.#disposed
  }

  #assertLive(): void {
    if (this.#disposed) throw new HeError('INVALID_INPUT', 'this search index was disposed')
  }

  /** Deletes every processed plaintext. */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    for (const handle of this.#owned) disown(handle)
    this.#owned.length = 0
    this.#blocks.length = 0
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
