import {
  type DiagonalMemory,
  narrowResidues,
  type RnsKernel,
  rnsKernelApplies,
  rnsKernelCompiles,
  sealDataWords,
} from '@sealbox/he-ring'
import type { Ciphertext, ComprModeType } from 'node-seal/throws'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { HeError } from '../errors/HeError.ts'
import { ringCall, sealCall } from '../errors/toHeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import { galoisKeyWordsOf } from '../keys/galoisKeyWordsOf.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import { areFreshQuerySaves, freshCiphertextHeader, sameBytes } from './freshQueryHeader.ts'
import { type KeySwitchLayout, keySwitchLayoutOf, keySwitchLayoutRows } from './KeySwitchLayout.ts'
import { type KeySwitchDiagonalSink, keySwitchDiagonalSink } from './keySwitchDiagonalSink.ts'
import { keySwitchRnsKernel } from './keySwitchRnsKernel.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { ProcessedSearchBlock, SearchKernel, SearchKernelChoice, SearchKernelInput } from './SearchKernel.ts'
import { usesKeySwitchKernel } from './searchCost.ts'

/** SEAL's save header and parms id: what `freshCiphertextHeader` reads of a diagonal's save. */
const PLAINTEXT_HEADER_BYTES = 48
/** Offset of the NTT-form flag in SEAL's save of a ciphertext (after its header and parms id). */
const SEAL_NTT_FLAG_AT = 16 + 32

/**
 * The whole BSGS product of a search with rotations — baby steps, products, sums and
 * giant steps (sealSearchKernel.ts's algorithm) — in he-ring's key-switching kernel
 * (`RnsKernel`), for BGV in NTT form with every prime and t below 2^31. SEAL loads the
 * query (and checks it), takes each block's result back through its own load (which
 * checks every residue) and mod-switches it; every rotation, product and sum in between
 * runs in the kernel on u32 residues. The diagonals live only in the kernel's diagonal
 * memory (u32: half of SEAL's u64 words), which may be shared by every worker thread of a
 * node: one thread `prepare`s it, the others `attach` to it, each with its own heap.
 */
export class KeySwitchSearch implements SearchKernel {
  readonly name = 'keySwitch'
  readonly ownsDiagonals = true
  readonly #config: SearchConfig
  readonly #kernel: RnsKernel
  /** Per block: per giant step b, the kernel offsets of its g (or fewer) diagonals. */
  readonly #diagonals: Map<number, number[][]>
  readonly #babyElement: number
  readonly #giantElement: number
  readonly #cipherWords: number
  readonly #baby: number[]
  readonly #scratch: [number, number, number]
  readonly #out: Uint32Array
  readonly #last: number
  /** SEAL's save header of a fresh query ciphertext (proven against SEAL at prepare), or undefined. */
  #freshHeader: Uint8Array | undefined
  #template: Uint8Array | undefined
  /** SEAL's save of a block result at the last level, for the fresh query header it came from. */
  #lastLevel: { from: Uint8Array; template: Uint8Array } | undefined

  /** The first 48 bytes of SEAL's save of a diagonal (version and parms id), for `attach`. */
  #plaintextHeader: Uint8Array | undefined
  /** SEAL's uncompressed save mode, for reading diagonals as they are streamed in (`begin`). */
  readonly #saveMode: ComprModeType

  private constructor(ctx: HeContext, config: SearchConfig, kernel: RnsKernel) {
    this.#saveMode = ctx.seal.ComprModeType.none
    this.#config = config
    this.#kernel = kernel
    this.#diagonals = new Map()
    const n = config.polyModulusDegree
    this.#babyElement = galoisElementOf(n, 1)
    this.#giantElement = galoisElementOf(n, config.babyStep)
    this.#cipherWords = kernel.ciphertextWords
    // Server-side, query ciphertext i (a cluster-private query's chunk i) and its baby
    // rotations take slots i·g … i·g + g − 1; client-side, slot a holds ciphertext a.
    const slots = config.babySteps === 'server' ? config.queryCiphertexts * config.babyStep : config.babyStep
    this.#baby = Array.from({ length: slots }, () => kernel.alloc(this.#cipherWords))
    this.#scratch = [kernel.alloc(this.#cipherWords), kernel.alloc(this.#cipherWords), kernel.alloc(this.#cipherWords)]
    this.#out = new Uint32Array(2 * this.#cipherWords)
    this.#last = kernel.alloc(this.#cipherWords)
  }

  /** The kernel for this index, or undefined when the config runs elsewhere (see `usesKeySwitchKernel`). */
  static prepare(
    ctx: HeContext,
    config: SearchConfig,
    blocks: readonly ProcessedSearchBlock[],
    choice: SearchKernelChoice,
    diagonals?: DiagonalMemory,
  ): KeySwitchSearch | undefined {
    if (!KeySwitchSearch.applies(ctx, config, choice)) return undefined
    const search = KeySwitchSearch.begin(ctx, config, diagonals)
    const sink = search.sink
    for (const { block, plaintexts } of blocks) {
      // Giant-step rows are already in the kernel's order: put them in that order.
      sink.beginBlock(block, { ordered: true })
      for (const [k, plaintext] of plaintexts.flat().entries()) sink.put(k, plaintext)
      sink.endBlock(block)
    }
    return search
  }

  /**
   * An empty kernel that takes a database block by block (`sink`, for `processSearchDatabase`):
   * each block's diagonals go into the diagonal memory as u32 residues as soon as they are
   * encoded, so SEAL's heap never holds more than one block of them. Call only where
   * `applies` is true.
   */
  static begin(ctx: HeContext, config: SearchConfig, diagonals?: DiagonalMemory): KeySwitchSearch {
    const kernel = keySwitchRnsKernel(ctx, config, diagonals)
    const search = new KeySwitchSearch(ctx, config, kernel)
    // Every NTT-form diagonal at the first data level has the same save header: an empty one's.
    const header = withScope((scope) => {
      const plaintext = scope.track(new ctx.seal.Plaintext())
      const first = scope.track(ctx.context.firstParmsId())
      return sealCall('encode an empty diagonal', () => {
        ctx.batchEncoder?.encode(new BigInt64Array(config.polyModulusDegree), plaintext)
        ctx.evaluator.plainTransformToNttInplace(plaintext, first)
        return plaintext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array
      })
    })
    search.#plaintextHeader = header.slice(0, PLAINTEXT_HEADER_BYTES)
    search.#freshHeader = freshCiphertextHeader(ctx, header, 2 * kernel.L * config.polyModulusDegree)
    return search
  }

  /** Where `processSearchDatabase` streams the diagonals (see `begin`, `keySwitchDiagonalSink`). */
  get sink(): KeySwitchDiagonalSink {
    return keySwitchDiagonalSink({
      kernel: this.#kernel,
      config: this.#config,
      saveMode: this.#saveMode,
      rows: this.#diagonals,
    })
  }

  /** The baby-set slot of query ciphertext a. */
  #slotOf(a: number): number {
    return this.#config.babySteps === 'server' ? a * this.#config.babyStep : a
  }

  /** Whether this config's search runs in the key-switching kernel (`choice` 'auto' and the kernel's rules). */
  static applies(ctx: HeContext, config: SearchConfig, choice: SearchKernelChoice): boolean {
    const t = ctx.plainModulus
    return (
      choice === 'auto' &&
      t !== undefined &&
      usesKeySwitchKernel(config.operations, ctx.facts, config.scheme, config.nttForm) &&
      rnsKernelApplies(ctx.coeffPrimes, t) &&
      rnsKernelCompiles()
    )
  }

  /**
   * Where every block's diagonals are in the diagonal memory, and what else a thread
   * needs to search them without processing (`attach`): plain JSON.
   */
  layout(): KeySwitchLayout {
    return keySwitchLayoutOf({
      configId: this.#config.configId,
      plainWords: this.#kernel.L * this.#kernel.n,
      rows: this.#diagonals,
      plaintextHeader: this.#plaintextHeader,
    })
  }

  /**
   * The kernel over diagonals another thread `prepare`d into `diagonals` (ready, with
   * `layout` published beside them): this thread's own heap (tables, keys, scratch) only.
   */
  static attach(
    ctx: HeContext,
    config: SearchConfig,
    diagonals: DiagonalMemory,
    layout: KeySwitchLayout,
  ): KeySwitchSearch {
    if (!KeySwitchSearch.applies(ctx, config, 'auto') || layout.configId !== config.configId) {
      throw new HeError(
        'INVALID_INPUT',
        `the shared diagonals were processed for config ${layout.configId}, not ${config.configId}`,
      )
    }
    const kernel = keySwitchRnsKernel(ctx, config, diagonals)
    const plainWords = kernel.L * kernel.n
    if (layout.plainWords !== plainWords) {
      throw new HeError(
        'INVALID_INPUT',
        `the shared diagonals have ${layout.plainWords} words a diagonal, not ${plainWords}`,
      )
    }
    const search = new KeySwitchSearch(ctx, config, kernel)
    for (const [index, offsets] of keySwitchLayoutRows(layout, diagonals.bytes)) search.#diagonals.set(index, offsets)
    if (layout.plaintextHeader.length === PLAINTEXT_HEADER_BYTES) {
      search.#plaintextHeader = Uint8Array.from(layout.plaintextHeader)
      search.#freshHeader = freshCiphertextHeader(ctx, search.#plaintextHeader, 2 * plainWords)
    }
    return search
  }

  /** The memory the diagonals are in (the kernel's own unless one was given to `prepare`). */
  get diagonalMemory(): DiagonalMemory {
    return this.#kernel.diagonals
  }

  /** Bytes of the kernel's own heap (tables, scratch, one user's keys); the diagonals are in `diagonalMemory`. */
  get heapBytes(): number {
    return this.#kernel.heapBytes
  }

  /**
   * Takes the query straight from its envelopes when every item is an unseeded,
   * uncompressed SEAL save whose header is exactly a fresh query ciphertext's: the words
   * go into the kernel, each checked below its prime first (what SEAL's load checks, but
   * without a SEAL exception for a forged one), and SEAL loads nothing. Returns false
   * (nothing done) otherwise: the caller loads the query through SEAL.
   */
  loadDirect(items: readonly Envelope<'ciphertext'>[]): boolean {
    const header = this.#freshHeader
    if (!header || !areFreshQuerySaves(items, header, this.#cipherWords)) return false
    const { n, L } = this.#kernel
    const primes = this.#kernel.shape.keyPrimes.slice(0, L)
    const words = this.#out.subarray(0, this.#cipherWords)
    for (const [a, item] of items.entries()) {
      const unreduced = narrowResidues(item.payload.subarray(header.byteLength), words, primes, n)
      if (unreduced > 0) {
        throw new HeError(
          'INVALID_ENVELOPE',
          `query ciphertext ${a} has ${unreduced} coefficients at or above their prime: it is not valid for these parameters`,
        )
      }
      this.#kernel.words(this.#baby[this.#slotOf(a)] as number, this.#cipherWords).set(words)
    }
    this.#template = (items[0] as Envelope<'ciphertext'>).payload.slice()
    return true
  }

  /** Copies the loaded query ciphertexts' residues into the kernel's baby-step slots. */
  loadQuery(ctx: HeContext, query: readonly Ciphertext[], items: readonly Envelope<'ciphertext'>[]): void {
    const none = ctx.seal.ComprModeType.none
    let template: Uint8Array | undefined
    const words = this.#out.subarray(0, this.#cipherWords)
    for (const [a, ciphertext] of query.entries()) {
      const item = items[a]
      const saved =
        item && !item.seeded && item.compression === 'none'
          ? item.payload
          : sealCall('save query ciphertext', () => ciphertext.saveToArray(none) as Uint8Array)
      template ??= saved.slice()
      const residues = ringCall('read query ciphertext', () => sealDataWords(saved, this.#cipherWords))
      const { n, L } = this.#kernel
      if (narrowResidues(residues, words, this.#kernel.shape.keyPrimes.slice(0, L), n) > 0) {
        throw new HeError('INVALID_ENVELOPE', `query ciphertext ${a} has a residue at or above its prime`)
      }
      this.#kernel.words(this.#baby[this.#slotOf(a)] as number, this.#cipherWords).set(words)
    }
    this.#template = template
  }

  /** `SearchKernel.run` for this shape, with the user's Galois keys (their kernel words cached with them). */
  run(input: SearchKernelInput): void {
    const { ctx, scope } = input
    const template = this.#template
    if (template === undefined) throw new HeError('INTERNAL', 'the key-switching kernel ran before a query was loaded')
    this.#template = undefined
    const galoisKeys = input.galoisKeys
    const kernel = this.#kernel
    const n = this.#config.polyModulusDegree
    const kernelKeys = input.kernelKeys
    if (kernelKeys) ringCall('load Galois keys', () => kernel.useKeys(kernelKeys))
    else if (!galoisKeys) throw new HeError('MISSING_KEY', 'this search rotates: Galois keys are required')
    else {
      const keyWords = galoisKeyWordsOf(
        ctx,
        galoisKeys,
        this.#config.galoisSteps.map((step) => galoisElementOf(n, step)),
      )
      ringCall('load Galois keys', () => kernel.useKeys(keyWords))
    }
    if (this.#config.babySteps === 'server') {
      const baby = this.#baby
      const g = this.#config.babyStep
      for (let base = 0; base < baby.length; base += g) {
        if (this.#config.hoistBabySteps && g > 2) {
          // One decomposition of the query ciphertext for all g − 1 rotations, each by its own step.
          kernel.decompose(baby[base] as number)
          for (let a = 1; a < g; a++) {
            kernel.rotateHoisted(baby[base + a] as number, baby[base] as number, galoisElementOf(n, a))
          }
        } else {
          for (let a = 1; a < g; a++) {
            kernel.rotate(baby[base + a] as number, baby[base + a - 1] as number, this.#babyElement)
          }
        }
      }
    }
    const result = scope.track(new ctx.seal.Ciphertext())
    const lastTemplate = this.#lastLevelTemplate(ctx, template, result)
    const lastWords = (this.#cipherWords / kernel.L) * (kernel.L - 1)
    const residuesAt = lastTemplate.byteLength - lastWords * 8
    const out = new Uint8Array(this.#out.buffer, 0, lastWords * 8)
    // One prime left: its two polynomials back to coefficient form in the kernel (SEAL's
    // inverse NTT takes ~10× longer), framed as SEAL's save with the NTT flag cleared.
    const coefficients = input.coefficientForm && kernel.L === 2 ? lastTemplate.slice() : undefined
    if (coefficients) coefficients[SEAL_NTT_FLAG_AT] = 0
    for (const { block } of input.blocks) {
      kernel.modSwitch(this.#last, this.#blockSum(this.#diagonals.get(block.index) ?? []))
      const words = kernel.words(this.#last, lastWords)
      for (let i = 0; i < words.length; i++) {
        this.#out[2 * i] = words[i] as number
        this.#out[2 * i + 1] = 0
      }
      lastTemplate.set(out, residuesAt)
      // SEAL's load checks every residue is below its prime: a kernel fault cannot pass as a result.
      sealCall('load block result', () => result.loadFromArray(ctx.context, lastTemplate))
      if (coefficients) {
        // Kernel offsets are bytes: c1 starts n u32 words after c0.
        kernel.intt(this.#last, 0)
        kernel.intt(this.#last + (lastWords / 2) * 4, 0)
        for (let i = 0; i < words.length; i++) this.#out[2 * i] = words[i] as number
        coefficients.set(out, residuesAt)
      }
      input.onBlock(block, result, coefficients)
    }
  }

  /**
   * The frame of a last-level result: SEAL's own save of the query ciphertext mod-switched
   * by SEAL (level, size and the correction factor its mod switch records), made once for
   * each fresh-query header seen and kept; the kernel's mod switch fills in the residues.
   */
  #lastLevelTemplate(ctx: HeContext, template: Uint8Array, scratch: Ciphertext): Uint8Array {
    const headerBytes = template.byteLength - this.#cipherWords * 8
    const from = template.subarray(0, headerBytes)
    const cached = this.#lastLevel
    if (cached && sameBytes(cached.from, from)) {
      return cached.template
    }
    sealCall('load query ciphertext', () => scratch.loadFromArray(ctx.context, template))
    withScope((scope) => ctx.evaluator.cipherModSwitchToInplace(scratch, scope.track(ctx.context.lastParmsId())))
    const saved = sealCall('save last level', () => scratch.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array)
    this.#lastLevel = { from: from.slice(), template: saved }
    return saved
  }

  /** Σ_b rot_{g·b}(Σ_a P[b][a] ⊙ baby[a]) by Horner's rule; returns the kernel offset of the result. */
  #blockSum(rows: readonly number[][]): number {
    const kernel = this.#kernel
    let [acc, inner, rotated] = this.#scratch
    for (let b = rows.length - 1; b >= 0; b--) {
      const target = b === rows.length - 1 ? acc : inner
      kernel.innerProduct(target, this.#baby, rows[b] as number[])
      if (b < rows.length - 1) {
        kernel.rotate(rotated, acc, this.#giantElement)
        kernel.addCiphertext(rotated, inner)
        ;[acc, rotated] = [rotated, acc]
      }
    }
    return acc
  }
}
