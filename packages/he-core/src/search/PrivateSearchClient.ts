import { encryptSymmetric, encryptSymmetricSeeded } from '../crypto/encrypt.ts'
import type { BytesLike } from '../envelope/asPlainUint8Array.ts'
import { loadSealObject } from '../envelope/loadSealObject.ts'
import { packSealCiphertext } from '../envelope/packSealCiphertext.ts'
import { sealCompressionMode } from '../envelope/saveSealObject.ts'
import { HeError } from '../errors/HeError.ts'
import { sealCall, toHeError } from '../errors/toHeError.ts'
import { exportGaloisKeys } from '../keys/exportKeys.ts'
import { KeySet } from '../keys/KeySet.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import { assertSearchContext } from './processSearchDatabase.ts'
import { type SearchConfig, searchShapeOf } from './SearchConfig.ts'
import type { SearchCatalog, SearchRowId } from './SearchDatabase.ts'
import { scaleQueryVector } from './scaleVectors.ts'
import type { SearchWireEncoding } from './searchCost.ts'
import { isUnusedSlot, querySlots, scatterBlockScores } from './searchLayout.ts'
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
  readonly #ownsKeys: boolean

  private constructor(
    ctx: HeContext,
    config: SearchConfig,
    keySet: KeySet,
    ownsKeys: boolean,
    catalog?: SearchCatalog,
  ) {
    this.ctx = ctx
    this.config = config
    this.keySet = keySet
    this.#ownsKeys = ownsKeys
    this.catalog = catalog
  }

  static create(ctx: HeContext, config: SearchConfig, options: PrivateSearchClientOptions = {}): PrivateSearchClient {
    assertSearchContext(ctx, config)
    if (options.catalog && options.catalog.ids.length !== config.rows) {
      throw new HeError(
        'INVALID_INPUT',
        `the catalog names ${options.catalog.ids.length} rows, the config has ${config.rows}`,
      )
    }
    const steps = config.galoisSteps
    if (options.keySet) {
      const missing = steps.filter((step) => !options.keySet?.hasGaloisStep(step))
      if (missing.length > 0) {
        throw new HeError('MISSING_KEY', `the key set lacks Galois step ${missing.join(', ')} that this search needs`)
      }
      return new PrivateSearchClient(ctx, config, options.keySet, false, options.catalog)
    }
    const keySet = KeySet.generate(ctx, steps.length > 0 ? { galois: { steps } } : {})
    return new PrivateSearchClient(ctx, config, keySet, true, options.catalog)
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
    options: { seeded?: boolean; compression?: SearchWireEncoding } = {},
  ): Uint8Array {
    const seeded = options.seeded ?? true
    const compression = options.compression ?? this.config.compression
    const config = this.config
    const scaled = scaleQueryVector(config, vector)
    const shape = searchShapeOf(config)
    const encoder = this.ctx.batchEncoder
    if (!encoder) throw new HeError('SCHEME_MISMATCH', 'private search needs BFV or BGV batching')
    const level = this.ctx.topLevel
    const ciphertexts = withScope((scope) =>
      Array.from({ length: config.queryCiphertexts }, (_, a) => {
        const plaintext = scope.track(new this.ctx.seal.Plaintext())
        sealCall('encode query', () => encoder.encode(querySlots(shape, scaled, a), plaintext))
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
  decryptScores(response: BytesLike | readonly BytesLike[], options: { partial?: boolean } = {}): SearchScores {
    const config = this.config
    const { blocks } = decodeSearchResponse(response, {
      fingerprint: this.ctx.fingerprint,
      keySetId: this.keySet.id,
      configId: config.configId,
      blockCount: config.blocks.length,
      ...(options.partial ? { partial: true } : {}),
    })
    const shape = searchShapeOf(config)
    const scores = new Float64Array(config.rows)
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
    return { scores, noiseBudgets, minNoiseBudget: Math.min(...noiseBudgets), strayNonZeroSlots, missingRows }
  }

  /** The k best rows of decrypted scores, with ids, similarity values and metadata. */
  topK(scores: SearchScores | Float64Array, k: number): SearchHit[] {
    const values = scores instanceof Float64Array ? scores : scores.scores
    const s2 = this.config.scale * this.config.scale
    // Rows of a partial answer's missing blocks are NaN: never hits.
    const missing = scores instanceof Float64Array ? false : scores.missingRows.length > 0
    const ranked = missing
      ? topKIndices(
          values.map((value) => (Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value)),
          k,
        ).filter((row) => !Number.isNaN(values[row] as number))
      : topKIndices(values, k)
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
    options: { partial?: boolean } = {},
  ): { hits: SearchHit[]; minNoiseBudget: number; missingRows: { start: number; end: number }[] } {
    const scores = this.decryptScores(response, options)
    return { hits: this.topK(scores, k), minNoiseBudget: scores.minNoiseBudget, missingRows: scores.missingRows }
  }

  dispose(): void {
    if (this.#ownsKeys) this.keySet.dispose()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }
}
