import { DyadicAccumulator, sealDataWords } from '@sealbox/he-ring'
import type { Ciphertext } from 'node-seal/throws'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { HeError } from '../errors/HeError.ts'
import { ringCall, sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { areFreshQuerySaves, freshCiphertextHeader } from './freshQueryHeader.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { ProcessedSearchBlock, SearchKernel, SearchKernelChoice, SearchKernelInput } from './SearchKernel.ts'
import { usesDyadicKernel } from './searchCost.ts'

/**
 * Client-side baby steps with one giant step per block (g = D′) make every block one
 * sum Σ_a q_a ⊙ P_a: no rotations, nothing but products and additions of NTT-form
 * residues. That runs in `DyadicAccumulator`'s WebAssembly kernel instead of SEAL's
 * `multiplyPlain` + `addInplace`; SEAL still loads the query (seed expansion), checks
 * the result on load and mod-switches it.
 */
export class DyadicSearch implements SearchKernel {
  readonly name = 'dyadic'
  readonly ownsDiagonals = true
  readonly #accumulator: DyadicAccumulator
  readonly #terms: Map<number, number[]>
  readonly #cipherWords: number
  /** SEAL's save header of a fresh query ciphertext (first data level, NTT form, size 2), or undefined. */
  readonly #freshHeader: Uint8Array | undefined
  #template: Uint8Array | undefined

  private constructor(
    accumulator: DyadicAccumulator,
    terms: Map<number, number[]>,
    freshHeader: Uint8Array | undefined,
  ) {
    this.#accumulator = accumulator
    this.#terms = terms
    this.#freshHeader = freshHeader
    this.#cipherWords = accumulator.shape.polys * accumulator.shape.primes.length * accumulator.shape.polyModulusDegree
  }

  /** Bytes of the kernel's own WebAssembly memory (its copy of every diagonal, one query, the sums). */
  get heapBytes(): number {
    return this.#accumulator.heapBytes
  }

  /** The kernel for this index, or undefined when the config needs SEAL (rotations, BFV, primes ≥ 2^32). */
  static prepare(
    ctx: HeContext,
    config: SearchConfig,
    blocks: readonly ProcessedSearchBlock[],
    choice: SearchKernelChoice,
  ): DyadicSearch | undefined {
    const primes = ctx.coeffPrimes.slice(0, ctx.facts.dataPrimeCount)
    // The cost model's rule (no rotation at all, BGV in NTT form, primes below 2^32), so the
    // model prices exactly the configs the kernel runs.
    const applies = choice === 'auto' && usesDyadicKernel(config.operations, ctx.facts, config.scheme, config.nttForm)
    if (!applies) return undefined
    const none = ctx.seal.ComprModeType.none
    const plainWords = primes.length * config.polyModulusDegree
    const residues: Uint8Array[] = []
    let plaintextSave: Uint8Array | undefined
    const terms = new Map<number, number[]>()
    for (const { block, plaintexts } of blocks) {
      const row = plaintexts[0] ?? []
      terms.set(
        block.index,
        row.map((plaintext) => {
          const saved = sealCall('save diagonal', () => plaintext.saveToArray(none) as Uint8Array)
          plaintextSave ??= saved
          residues.push(ringCall('read diagonal', () => sealDataWords(saved, plainWords)))
          return residues.length - 1
        }),
      )
    }
    const accumulator = ringCall(
      'prepare the dyadic kernel',
      () =>
        new DyadicAccumulator(
          { polyModulusDegree: config.polyModulusDegree, primes, polys: 2 },
          residues,
          config.queryCiphertexts,
        ),
    )
    const freshHeader = plaintextSave && freshCiphertextHeader(ctx, plaintextSave, 2 * plainWords)
    return new DyadicSearch(accumulator, terms, freshHeader)
  }

  /**
   * Takes the query straight from its envelopes when every item is an unseeded,
   * uncompressed SEAL save whose header is exactly a fresh query ciphertext's: then the
   * words are copied into the kernel and each is checked below its prime (what SEAL's
   * load would check), and SEAL loads nothing. Returns false (nothing done) otherwise:
   * the caller loads the query through SEAL, which also names what is wrong with it.
   */
  loadDirect(items: readonly Envelope<'ciphertext'>[]): boolean {
    const header = this.#freshHeader
    if (!header || !areFreshQuerySaves(items, header, this.#cipherWords)) return false
    ringCall('load query', () =>
      this.#accumulator.loadQuery(
        items.map((item) => item.payload.subarray(header.byteLength)),
        { verify: true },
      ),
    )
    this.#template = (items[0] as Envelope<'ciphertext'>).payload.slice()
    return true
  }

  /**
   * Copies the query's residues into the kernel. `query` are the loaded (checked)
   * ciphertexts, `items` the envelopes they were loaded from: an unseeded, uncompressed
   * payload already is SEAL's save (and SEAL's load checked every residue), so its words
   * are read in place; anything else is saved back out of SEAL uncompressed.
   */
  loadQuery(ctx: HeContext, query: readonly Ciphertext[], items: readonly Envelope<'ciphertext'>[]): void {
    const none = ctx.seal.ComprModeType.none
    let template: Uint8Array | undefined
    const residues = query.map((ciphertext, i) => {
      const item = items[i]
      const saved =
        item && !item.seeded && item.compression === 'none'
          ? item.payload
          : sealCall('save query ciphertext', () => ciphertext.saveToArray(none) as Uint8Array)
      template ??= saved
      return ringCall('read query ciphertext', () => sealDataWords(saved, this.#cipherWords))
    })
    ringCall('load query', () => this.#accumulator.loadQuery(residues))
    // A fresh query ciphertext's save (level, form, size, correction factor) frames each
    // result; a copy, as the results are written into it.
    this.#template = template?.slice()
  }

  /** `SearchKernel.run` for this shape: each block's sum, loaded back into SEAL, mod-switched to the last level. */
  run(input: SearchKernelInput): void {
    const { ctx, scope } = input
    const template = this.#template
    if (template === undefined) throw new HeError('INTERNAL', 'the dyadic kernel ran before a query was loaded')
    const result = scope.track(new ctx.seal.Ciphertext())
    const lastParmsId = scope.track(ctx.context.lastParmsId())
    const residuesAt = template.byteLength - this.#cipherWords * 8
    for (const { block } of input.blocks) {
      const terms = this.#terms.get(block.index) ?? []
      template.set(
        ringCall('sum block', () => this.#accumulator.sum(terms)),
        residuesAt,
      )
      // SEAL's load checks every residue is below its prime: a kernel fault cannot pass as a result.
      sealCall('load block sum', () => result.loadFromArray(ctx.context, template))
      ctx.evaluator.cipherModSwitchToInplace(result, lastParmsId)
      input.onBlock(block, result)
    }
    this.#template = undefined
  }
}
