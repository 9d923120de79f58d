import type { Ciphertext } from 'node-seal/throws'
import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'
import type { SearchConfig } from './SearchConfig.ts'
import { usesDyadicKernel } from './searchCost.ts'
import type { ProcessedSearchBlock, SearchKernelInput } from './searchKernel.ts'
import { DyadicAccumulator } from './wasm/DyadicAccumulator.ts'
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
    this.#accumulator.loadQuery(
      items.map((item) => item.payload.subarray(header.byteLength)),
      { verify: true },
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

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * True when every item is an unseeded, uncompressed SEAL save of `words` residues behind
 * exactly `header` (`freshCiphertextHeader`): words a kernel may read in place.
 */
export function areFreshQuerySaves(
  items: readonly Envelope<'ciphertext'>[],
  header: Uint8Array,
  words: number,
): boolean {
  const bytes = header.byteLength + words * 8
  return items.every(
    (item) =>
      !item.seeded &&
      item.compression === 'none' &&
      item.payload.byteLength === bytes &&
      sameBytes(item.payload.subarray(0, header.byteLength), header),
  )
}

/**
 * The header SEAL writes when it saves a fresh BGV query ciphertext uncompressed (first
 * data level, NTT form, size 2, scale 1, correction factor 1), followed by `words`
 * residues. Built from the layout SEAL 4.1 uses (ENVELOPE.md) with SEAL's own version
 * bytes and parms id (from a plaintext it saved at that level), then proven by loading a
 * zero ciphertext with it into SEAL: undefined if SEAL refuses it or reads it otherwise
 * (a future layout), and then every query goes through SEAL's load.
 */
export function freshCiphertextHeader(
  ctx: HeContext,
  plaintextSave: Uint8Array,
  words: number,
): Uint8Array | undefined {
  const SEAL_HEADER = 16
  const length = SEAL_HEADER + 32 + 1 + 8 * 5 + SEAL_HEADER + 8
  const header = new Uint8Array(length)
  const view = new DataView(header.buffer)
  const dataArray = SEAL_HEADER + 8 + words * 8
  // SEAL header: magic, header size, version, compression none, reserved (as SEAL wrote them), then the size.
  header.set(plaintextSave.subarray(0, 8), 0)
  let at = SEAL_HEADER
  header.set(plaintextSave.subarray(at, at + 32), at) // parms id of the first data level
  at += 32
  view.setUint8(at, 1) // NTT form
  at += 1
  view.setBigUint64(at, 2n, true) // size
  view.setBigUint64(at + 8, BigInt(ctx.facts.polyModulusDegree), true)
  view.setBigUint64(at + 16, BigInt(ctx.facts.dataPrimeCount), true)
  view.setFloat64(at + 24, 1, true) // scale
  view.setBigUint64(at + 32, 1n, true) // correction factor
  at += 40
  header.set(plaintextSave.subarray(0, 8), at) // the data array's own SEAL header…
  view.setBigUint64(at + 8, BigInt(dataArray), true)
  view.setBigUint64(at + SEAL_HEADER, BigInt(words), true) // …and its word count
  view.setBigUint64(8, BigInt(length + words * 8), true)
  const zero = new Uint8Array(length + words * 8)
  zero.set(header)
  try {
    return withScope((scope) => {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      sealCall('load a fresh ciphertext header', () => ciphertext.loadFromArray(ctx.context, zero))
      const fresh =
        ciphertext.isNttForm() &&
        ciphertext.size() === 2 &&
        ctx.levelOf(ciphertext) === ctx.topLevel &&
        sameBytes((ciphertext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array).subarray(0, length), header)
      return fresh ? header : undefined
    })
  } catch {
    return undefined
  }
}
