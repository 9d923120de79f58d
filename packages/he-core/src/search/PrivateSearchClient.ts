import { encryptSymmetric, encryptSymmetricSeeded } from '../crypto/encrypt.ts'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { isPackedPayload, PACKED_HEADER_BYTES } from '../envelope/packedCiphertext.ts'
import { packSealCiphertext } from '../envelope/packSealCiphertext.ts'
import { sealCompressionMode } from '../envelope/saveSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import { sealCall, toHeError } from '../errors/toHeError.ts'
import { exportGaloisKeys } from '../keys/exportKeys.ts'
import { KeySet } from '../keys/KeySet.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import { assertSearchContext } from './processSearchDatabase.ts'
import { checkSearchClustering, nearestClusters, type SearchClustering } from './SearchClustering.ts'
import { type SearchConfig, searchShapeOf } from './SearchConfig.ts'
import type { SearchCatalog, SearchRowId } from './SearchDatabase.ts'
import { scaleQueryVector } from './scaleVectors.ts'
import { clusterQueryChunks } from './searchClusterLayout.ts'
import type { SearchWireEncoding } from './searchCost.ts'
import { isUnusedSlot, querySlots, scatterBlockScores } from './searchLayout.ts'
import { type SearchResponseDroppedBits, searchResponseDroppedBits } from './searchResponseDroppedBits.ts'
import { decodeSearchResponse, encodeSearchQuery } from './searchWire.ts'
import { topKIndices } from './topK.ts'

/** Decrypted scores of every row, with the noise left in each response ciphertext. */
export interface SearchScores {
  /** Integer score of each row r: Σ_j X[r][j]·q[j] over the scaled vectors (exact). */
  scores: Float64Array
  /** Noise budget (bits) left in each block's response after the mod switch: > 0 means exact. */
  noiseBudgets: number[]
  minNoiseBudget: number
  /** Slots of the responses that map to no row and yet decrypted to non-zero (0 when all is well). */
  strayNonZeroSlots: number
  /** Cluster-private mode: the cluster scored (every other row's score is −∞). */
  cluster?: number
  /** With `partial`: the row ranges whose blocks the response lacks (their scores are NaN); empty otherwise. */
  missingRows: { start: number; end: number }[]
}

/** One ranked row. */
export interface SearchHit {
  rank: number
  /** Row number in the database (0-based). */
  row: number
  id: SearchRowId
  /** The exact integer score. */
  score: number
  /** score / s²: the cosine similarity (cosine metric) or dot product (dot metric) of the unscaled vectors, ± rounding. */
  similarity: number
  metadata?: unknown
}

/** Options of `PrivateSearchClient.create`. */
export interface PrivateSearchClientOptions {
  /** Row ids and metadata, to name the hits (row numbers otherwise). */
  catalog?: SearchCatalog
  /** Use this key set (it must have the Galois steps the config needs); a fresh one otherwise, owned by the client. */
  keySet?: KeySet
  /**
   * Cluster-private configs (`config.clusters`): the public centroids and members the server
   * publishes with its config (required there, refused in exact mode). Default: the
   * config's own `clustering`, as a server's config carries it.
   */
  clustering?: SearchClustering
}

/** Options of `decryptScores` and `rank`. */
export interface SearchDecryptOptions {
  /** Cluster-private mode: the cluster the response scores (default: that of the last `encryptQuery`). */
  cluster?: number
  /**
   * A response that lacks some blocks (a sharded search with `partial: true` whose shard
   * did not answer) is scored over the blocks it has, and `missingRows` names the rest;
   * without it, such a response is INVALID_INPUT. Exact mode only.
   */
  partial?: boolean
}

/**
 * The client half of private search. It holds the secret key (never exported here),
 * makes the evaluation keys the server needs (Galois keys for exactly the config's
 * steps, seeded; none at all with client-side baby steps and g = D'), encrypts
 * queries (seeded symmetric encryption: half the bytes) and ranks decrypted scores.
 */
export class PrivateSearchClient implements Disposable {
  readonly ctx: HeContext
  readonly config: SearchConfig
  readonly keySet: KeySet
  readonly catalog: SearchCatalog | undefined
  /** Cluster-private mode: the public clustering (undefined in exact mode). */
  readonly clustering: SearchClustering | undefined
  readonly #ownsKeys: boolean
  /** The cluster of the last query encrypted (cluster-private mode). */
  #lastCluster: number | undefined

  private constructor(
    ctx: HeContext,
    config: SearchConfig,
    keySet: KeySet,
    ownsKeys: boolean,
    catalog: SearchCatalog | undefined,
    clustering: SearchClustering | undefined,
  ) {
    this.ctx = ctx
    this.config = config
    this.keySet = keySet
    this.#ownsKeys = ownsKeys
    this.catalog = catalog
    this.clustering = clustering
    this.responseDroppedBits = searchResponseDroppedBits(ctx, config)
  }

  /** The most low-order bits a response block may drop off c0 and c1 (the server's rule); more is refused. */
  readonly responseDroppedBits: SearchResponseDroppedBits

  static create(ctx: HeContext, config: SearchConfig, options: PrivateSearchClientOptions = {}): PrivateSearchClient {
    assertSearchContext(ctx, config)
    if (options.catalog && options.catalog.ids.length !== config.rows) {
      throw new HeError(
        'INVALID_INPUT',
        `the catalog names ${options.catalog.ids.length} rows, the config has ${config.rows}`,
      )
    }
    // A server's config (`GET /api/v1/search/config`) carries its clustering: the flow is unchanged.
    const given = options.clustering ?? (config as { clustering?: SearchClustering }).clustering
    if (!config.clusters && given) {
      throw new HeError('INVALID_INPUT', `search config ${config.configId} is exact: it takes no clustering`)
    }
    if (config.clusters && !given) {
      throw new HeError(
        'INVALID_INPUT',
        `search config ${config.configId} is cluster-private: pass the server's clustering (centroids and members)`,
      )
    }
    const clustering = given && checkSearchClustering(config, given)
    const steps = config.galoisSteps
    if (options.keySet) {
      const missing = steps.filter((step) => !options.keySet?.hasGaloisStep(step))
      if (missing.length > 0) {
        throw new HeError('MISSING_KEY', `the key set lacks Galois step ${missing.join(', ')} that this search needs`)
      }
      return new PrivateSearchClient(ctx, config, options.keySet, false, options.catalog, clustering)
    }
    const keySet = KeySet.generate(ctx, steps.length > 0 ? { galois: { steps } } : {})
    return new PrivateSearchClient(ctx, config, keySet, true, options.catalog, clustering)
  }

  /**
   * The clusters nearest to a query vector, nearest first (cluster-private mode), from the
   * public centroids: computed here, never sent.
   */
  nearestClusters(vector: ArrayLike<number>, count = 1): number[] {
    if (!this.clustering) throw new HeError('INVALID_INPUT', 'this search is exact: it has no clusters')
    return nearestClusters(this.clustering, this.config.metric, vector, count)
  }

  /** The cluster nearest to a query vector (cluster-private mode). */
  nearestCluster(vector: ArrayLike<number>): number {
    return this.nearestClusters(vector, 1)[0] as number
  }

  /**
   * The Galois keys to upload (a seeded envelope for exactly the needed steps, packed —
   * each residue in ⌈log2 q⌉ bits — unless `compression` says otherwise), or null when
   * the server needs none (client-side baby steps with g = D').
   */
  evaluationKeys(options: { compression?: SearchWireEncoding } = {}): Uint8Array | null {
    if (this.config.galoisSteps.length === 0) return null
    return exportGaloisKeys(this.keySet, { seeded: true, compression: options.compression ?? 'packed' })
  }

  /**
   * Encrypts a query vector (length D; normalised for cosine, norm ≤ maxNorm for dot)
   * into a query envelope: g seeded ciphertexts holding the baby rotations of q
   * (client-side baby steps), or one.
   *
   * `seeded: false` sends both halves of every ciphertext instead of the seed of the
   * random half: twice the upload, and the server skips regenerating the random halves
   * (SEAL's PRNG), which is most of what it spends loading a query (SEARCH.md, "knobs").
   * `compression` overrides the config's for this query (the server reads either); an
   * unseeded, uncompressed query is read by the server in place, without a SEAL load.
   */
  encryptQuery(
    vector: ArrayLike<number>,
    options: { seeded?: boolean; compression?: SearchWireEncoding; cluster?: number } = {},
  ): Uint8Array {
    const seeded = options.seeded ?? true
    const compression = options.compression ?? this.config.compression
    const config = this.config
    const scaled = scaleQueryVector(config, vector)
    const shape = searchShapeOf(config)
    // Cluster-private: q in its cluster's positions, zeros in every other; one ciphertext per chunk.
    let chunks: Int32Array[] | undefined
    if (config.clusters) {
      const cluster = options.cluster ?? this.nearestCluster(vector)
      if (!Number.isInteger(cluster) || cluster < 0 || cluster >= config.clusters.clusters) {
        throw new HeError('INVALID_INPUT', `cluster ${cluster} is not one of the config's ${config.clusters.clusters}`)
      }
      chunks = clusterQueryChunks(config.clusters, cluster, scaled)
      this.#lastCluster = cluster
    } else if (options.cluster !== undefined) {
      throw new HeError('INVALID_INPUT', 'this search is exact: a query has no cluster')
    }
    const encoder = this.ctx.batchEncoder
    if (!encoder) throw new HeError('SCHEME_MISMATCH', 'private search needs BFV or BGV batching')
    const level = this.ctx.topLevel
    const ciphertexts = withScope((scope) =>
      Array.from({ length: config.queryCiphertexts }, (_, a) => {
        const plaintext = scope.track(new this.ctx.seal.Plaintext())
        const slots = chunks ? querySlots(shape, chunks[a] as Int32Array, 0) : querySlots(shape, scaled, a)
        sealCall('encode query', () => encoder.encode(slots, plaintext))
        // Packed: SEAL saves its 64-bit words, then each residue is cut to its prime's bits.
        const sealCompression = compression === 'packed' ? 'none' : compression
        const saved = seeded
          ? encryptSymmetricSeeded(this.keySet, plaintext, sealCompression)
          : (sealCall('save query ciphertext', () =>
              encryptSymmetric(this.keySet, plaintext, scope).saveToArray(sealCompressionMode(sealCompression)),
            ) as Uint8Array)
        const payload = compression === 'packed' ? packSealCiphertext(this.ctx, saved) : saved
        scope.free(plaintext)
        return { payload, seeded, level }
      }),
    )
    return encodeSearchQuery(
      { fingerprint: this.ctx.fingerprint, keySetId: this.keySet.id, configId: config.configId },
      ciphertexts,
    )
  }

  /**
   * Decrypts a response (or the parts of a split one) into every row's score. Throws
   * KEY_SET_MISMATCH for a response to another key set's query, INVALID_INPUT for a
   * wrong or incomplete set of blocks, NOISE_BUDGET_EXHAUSTED if any block lost its
   * noise budget (its values would be garbage).
   */
  decryptScores(response: BytesLike | readonly BytesLike[], options: SearchDecryptOptions = {}): SearchScores {
    const config = this.config
    const cluster = this.#clusterOf(options)
    const { blocks } = decodeSearchResponse(response, {
      fingerprint: this.ctx.fingerprint,
      keySetId: this.keySet.id,
      configId: config.configId,
      blockCount: config.blocks.length,
      ...(options.partial ? { partial: true } : {}),
    })
    const shape = searchShapeOf(config)
    if (cluster !== undefined && options.partial) {
      throw new HeError('INVALID_INPUT', 'a cluster-private response is one cluster whole: it is never partial')
    }
    // Cluster-private: the response scores the m virtual rows of one cluster.
    const scores = new Float64Array(shape.rows)
    const present = new Set(blocks.map((block) => block.index))
    const missingRows: { start: number; end: number }[] = []
    for (const block of config.blocks) {
      if (present.has(block.index)) continue
      scores.fill(Number.NaN, block.firstRow, block.firstRow + block.rows)
      const last = missingRows.at(-1)
      if (last && last.end === block.firstRow) last.end = block.firstRow + block.rows
      else missingRows.push({ start: block.firstRow, end: block.firstRow + block.rows })
    }
    const noiseBudgets: number[] = []
    let strayNonZeroSlots = 0
    const encoder = this.ctx.batchEncoder
    if (!encoder) throw new HeError('SCHEME_MISMATCH', 'private search needs BFV or BGV batching')
    withScope((scope) => {
      for (const { index, envelope } of blocks) {
        const block = config.blocks[index]
        if (!block) throw new HeError('INTERNAL', `block ${index} is not in the config`)
        this.#checkDroppedBits(index, envelope.payload)
        const ciphertext = scope.track(new this.ctx.seal.Ciphertext())
        loadSealObject(ciphertext, this.ctx, envelope, { kind: 'ciphertext' })
        const plaintext = scope.track(new this.ctx.seal.Plaintext())
        let slots: BigInt64Array
        try {
          noiseBudgets.push(this.keySet.decryptor.invariantNoiseBudget(ciphertext))
          this.keySet.decryptor.decrypt(ciphertext, plaintext)
          slots = encoder.decodeBigInt64(plaintext) as BigInt64Array
        } catch (error) {
          throw toHeError(error, `decrypt response block ${index}`, 'SEAL_ERROR')
        }
        if ((noiseBudgets.at(-1) as number) <= 0) {
          throw new HeError(
            'NOISE_BUDGET_EXHAUSTED',
            `response block ${index} has no noise budget left: its scores cannot be trusted (use a larger coefficient modulus)`,
            { details: { block: index } },
          )
        }
        scatterBlockScores(shape, block, slots, scores)
        for (let slot = 0; slot < slots.length; slot++) {
          if (slots[slot] !== 0n && isUnusedSlot(shape, block, slot)) strayNonZeroSlots++
        }
        scope.free(plaintext)
        scope.free(ciphertext)
      }
    })
    const minNoiseBudget = Math.min(...noiseBudgets)
    if (cluster === undefined) return { scores, noiseBudgets, minNoiseBudget, strayNonZeroSlots, missingRows }
    const members = (this.clustering as SearchClustering).members[cluster] ?? []
    const global = new Float64Array(config.rows).fill(Number.NEGATIVE_INFINITY)
    for (const [r, row] of members.entries()) global[row] = scores[r] as number
    // Virtual rows past the cluster's end multiply zeros: anything else there is a fault.
    for (let r = members.length; r < scores.length; r++) if (scores[r] !== 0) strayNonZeroSlots++
    return { scores: global, noiseBudgets, minNoiseBudget, strayNonZeroSlots, missingRows, cluster }
  }

  #clusterOf(options: SearchDecryptOptions): number | undefined {
    const layout = this.config.clusters
    if (!layout) {
      if (options.cluster !== undefined)
        throw new HeError('INVALID_INPUT', 'this search is exact: a response has no cluster')
      return undefined
    }
    const cluster = options.cluster ?? this.#lastCluster
    if (cluster === undefined) {
      throw new HeError('INVALID_INPUT', 'no query was encrypted yet: pass the cluster the response scores')
    }
    if (!Number.isInteger(cluster) || cluster < 0 || cluster >= layout.clusters) {
      throw new HeError('INVALID_INPUT', `cluster ${cluster} is not one of the config's ${layout.clusters}`)
    }
    return cluster
  }

  // A block that drops more bits than the noise bound allows could decrypt wrong with budget left.
  #checkDroppedBits(index: number, payload: Uint8Array): void {
    if (!isPackedPayload(payload) || payload.length < PACKED_HEADER_BYTES) return
    const allowed = this.responseDroppedBits.bits
    const dropped = [payload[7] as number, payload[12] as number]
    const over = dropped.findIndex((k, p) => k > (allowed[p] as number))
    if (over < 0) return
    throw new HeError(
      'INVALID_ENVELOPE',
      `response block ${index} drops ${dropped[over]} low-order bits of c${over}; search config ${this.config.configId} allows at most ${allowed[over]}`,
      { details: { block: index, polynomial: over, dropped: dropped[over], allowed: allowed[over] } },
    )
  }

  /** The k best rows of decrypted scores, with ids, similarity values and metadata. */
  topK(scores: SearchScores | Float64Array, k: number): SearchHit[] {
    const values = scores instanceof Float64Array ? scores : scores.scores
    const s2 = this.config.scale * this.config.scale
    // Cluster-private scores are −∞ outside the scored cluster, and the rows of a partial
    // answer's missing blocks are NaN: neither is a hit.
    const missing = scores instanceof Float64Array ? false : scores.missingRows.length > 0
    const ranked = topKIndices(
      missing ? values.map((value) => (Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value)) : values,
      k,
    ).filter((row) => Number.isFinite(values[row] as number))
    return ranked.map((row, rank) => {
      const score = values[row] as number
      const hit: SearchHit = { rank: rank + 1, row, id: this.catalog?.ids[row] ?? row, score, similarity: score / s2 }
      const metadata = this.catalog?.metadata?.[row]
      if (metadata !== undefined) hit.metadata = metadata
      return hit
    })
  }

  /**
   * `decryptScores` then `topK`. `partial`: a response that lacks some blocks (a sharded
   * search with `partial: true` whose shard did not answer) is ranked over the rows it
   * has, and `missingRows` says which rows were not searched; without it, INVALID_INPUT.
   */
  rank(
    response: BytesLike | readonly BytesLike[],
    k: number,
    options: SearchDecryptOptions = {},
  ): { hits: SearchHit[]; minNoiseBudget: number; missingRows: { start: number; end: number }[] } {
    const scores = this.decryptScores(response, options)
    return { hits: this.topK(scores, k), minNoiseBudget: scores.minNoiseBudget, missingRows: scores.missingRows }
  }

  /**
   * Cluster-private mode, several clusters probed (one query each:
   * `encryptQuery(vector, { cluster })` for each of `nearestClusters(vector, count)`): the k
   * best rows over every probed cluster's scores.
   */
  rankProbes(
    probes: readonly { cluster: number; response: BytesLike | readonly BytesLike[] }[],
    k: number,
  ): { hits: SearchHit[]; minNoiseBudget: number } {
    if (!this.config.clusters) throw new HeError('INVALID_INPUT', 'this search is exact: it has no clusters to probe')
    if (probes.length === 0) throw new HeError('INVALID_INPUT', 'rankProbes needs at least one probe')
    const merged = new Float64Array(this.config.rows).fill(Number.NEGATIVE_INFINITY)
    let minNoiseBudget = Number.POSITIVE_INFINITY
    for (const { cluster, response } of probes) {
      const scores = this.decryptScores(response, { cluster })
      minNoiseBudget = Math.min(minNoiseBudget, scores.minNoiseBudget)
      const members = this.clustering?.members[cluster] ?? []
      for (const row of members) merged[row] = scores.scores[row] as number
    }
    return { hits: this.topK(merged, k), minNoiseBudget }
  }

  dispose(): void {
    if (this.#ownsKeys) this.keySet.dispose()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
