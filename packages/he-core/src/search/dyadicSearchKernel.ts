import type { Ciphertext } from 'node-seal/throws'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { ProcessedSearchBlock, SearchKernelInput } from './searchKernel.ts'
import { DyadicAccumulator, dyadicHeadroom } from './wasm/DyadicAccumulator.ts'
import { sealDataWords } from './wasm/sealDataWords.ts'

/** Which implementation runs the ciphertext × plaintext sums of a search. */
export type SearchKernelChoice = 'auto' | 'seal'

/**
 * Client-side baby steps with one giant step per block (g = D′) make every block one
 * sum Σ_a q_a ⊙ P_a: no rotations, nothing but products and additions of NTT-form
 * residues. That runs in `DyadicAccumulator`'s WebAssembly kernel instead of SEAL's
 * `multiplyPlain` + `addInplace`; SEAL still loads the query (seed expansion), checks
 * the result on load and mod-switches it.
 */
export class DyadicSearch {
  readonly #accumulator: DyadicAccumulator
  readonly #terms: Map<number, number[]>
  readonly #cipherWords: number
  #template: Uint8Array | undefined

  private constructor(accumulator: DyadicAccumulator, terms: Map<number, number[]>) {
    this.#accumulator = accumulator
    this.#terms = terms
    this.#cipherWords = accumulator.shape.polys * accumulator.shape.primes.length * accumulator.shape.polyModulusDegree
  }

  /** The kernel for this index, or undefined when the config needs SEAL (rotations, BFV, primes ≥ 2^32). */
  static prepare(
    ctx: HeContext,
    config: SearchConfig,
    blocks: readonly ProcessedSearchBlock[],
    choice: SearchKernelChoice,
  ): DyadicSearch | undefined {
    const primes = ctx.coeffPrimes.slice(0, ctx.facts.dataPrimeCount)
    const applies =
      choice === 'auto' &&
      config.scheme === 'bgv' &&
      config.nttForm &&
      // Server-side baby steps rotate the query, except with g = 1.
      (config.babySteps === 'client' || config.babyStep === 1) &&
      blocks.every(({ plaintexts }) => plaintexts.length === 1) &&
      dyadicHeadroom(primes) >= 1
    if (!applies) return undefined
    const none = ctx.seal.ComprModeType.none
    const plainWords = primes.length * config.polyModulusDegree
    const residues: Uint8Array[] = []
    const terms = new Map<number, number[]>()
    for (const { block, plaintexts } of blocks) {
      const row = plaintexts[0] ?? []
      terms.set(
        block.index,
        row.map((plaintext) => {
          const saved = sealCall('save diagonal', () => plaintext.saveToArray(none) as Uint8Array)
          residues.push(sealDataWords(saved, plainWords))
          return residues.length - 1
        }),
      )
    }
    const accumulator = new DyadicAccumulator(
      { polyModulusDegree: config.polyModulusDegree, primes, polys: 2 },
      residues,
      config.queryCiphertexts,
    )
    return new DyadicSearch(accumulator, terms)
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
      return sealDataWords(saved, this.#cipherWords)
    })
    this.#accumulator.loadQuery(residues)
    // A fresh query ciphertext's save (level, form, size, correction factor) frames each
    // result; a copy, as the results are written into it.
    this.#template = template?.slice()
  }

  /** `runSearchKernel` for this shape: each block's sum, loaded back into SEAL, mod-switched to the last level. */
  run(input: SearchKernelInput): void {
    const { ctx, scope } = input
    const template = this.#template
    if (template === undefined) throw new Error('loadQuery first')
    const result = scope.track(new ctx.seal.Ciphertext())
    const lastParmsId = scope.track(ctx.context.lastParmsId())
    const residuesAt = template.byteLength - this.#cipherWords * 8
    for (const { block } of input.blocks) {
      const terms = this.#terms.get(block.index) ?? []
      template.set(this.#accumulator.sum(terms), residuesAt)
      // SEAL's load checks every residue is below its prime: a kernel fault cannot pass as a result.
      sealCall('load block sum', () => result.loadFromArray(ctx.context, template))
      ctx.evaluator.cipherModSwitchToInplace(result, lastParmsId)
      input.onBlock(block, result)
    }
    this.#template = undefined
  }
}
