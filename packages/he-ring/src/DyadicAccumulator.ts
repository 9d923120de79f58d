import { MUL_ACCUMULATE_WASM } from './mulAccumulateWasm.ts'
import { productHeadroom } from './productHeadroom.ts'
import { RingError } from './RingError.ts'
import { wasmModule } from './wasmModule.ts'

/** The shape of what is summed: RNS residues in SEAL's layout (poly, then prime, then coefficient). */
export interface DyadicShape {
  polyModulusDegree: number
  /** The primes of the level the operands live at. */
  primes: readonly bigint[]
  /** Polynomials per ciphertext (2 for a fresh one). */
  polys: number
}

interface KernelExports {
  memory: WebAssembly.Memory
  mulAccumulate(acc: number, x: number, p: number, polys: number, len: number): void
  reduce(words: number, polys: number, count: number, n: number, primes: number): void
  countUnreduced(words: number, polys: number, count: number, n: number, primes: number): number
}

const PAGE = 65536
let compiled: WebAssembly.Module | undefined

function kernelModule(): WebAssembly.Module {
  // A few hundred bytes (mulAccumulateWasm.ts records the size): small enough to compile
  // synchronously on any thread.
  compiled ??= wasmModule(MUL_ACCUMULATE_WASM)
  return compiled
}

/**
 * Sums of products of ciphertexts and plaintexts in NTT form, Σ_a x_a ⊙ P_a mod each
 * prime, outside SEAL. The plaintexts are copied in once; each query's ciphertexts are
 * copied in once and then summed against any selection of the plaintexts.
 *
 * Why: SEAL multiplies and reduces every residue one at a time, and in WebAssembly its
 * 64×64→128-bit products are emulated. With primes below 2^32 a product fits in 64 bits
 * exactly, so this kernel multiplies two words per SIMD instruction and reduces once per
 * `headroom` products: the same result, bit for bit (the search tests check the scores
 * against plain integers), at a fraction of the cost.
 *
 * Not thread-safe across calls that interleave: one `loadQuery` → `sum`… sequence at a time
 * (a worker thread evaluates one query at a time).
 */
export class DyadicAccumulator {
  readonly shape: DyadicShape
  readonly plaintextCount: number
  readonly maxQueryCiphertexts: number
  readonly #kernel: KernelExports
  readonly #headroom: number
  /** u64 words of one residue polynomial set (primes × n) and of one ciphertext (polys × that). */
  readonly #plainWords: number
  readonly #cipherWords: number
  readonly #primesAt = 0
  readonly #accAt: number
  readonly #queryAt: number
  readonly #plainAt: number
  #loaded = 0

  /**
   * @param plaintexts each plaintext's residues (primes × n little-endian u64 words).
   * @param maxQueryCiphertexts the most ciphertexts one `loadQuery` takes.
   */
  constructor(shape: DyadicShape, plaintexts: readonly Uint8Array[], maxQueryCiphertexts: number) {
    const headroom = productHeadroom(shape.primes)
    if (headroom < 1) {
      throw new RingError('INVALID_PARAMS', 'the dyadic kernel needs every prime below 2^32')
    }
    this.shape = shape
    this.#headroom = headroom
    this.plaintextCount = plaintexts.length
    this.maxQueryCiphertexts = maxQueryCiphertexts
    this.#plainWords = shape.primes.length * shape.polyModulusDegree
    this.#cipherWords = shape.polys * this.#plainWords
    const align = (bytes: number) => Math.ceil(bytes / 16) * 16
    this.#accAt = align(shape.primes.length * 8)
    this.#queryAt = this.#accAt + this.#cipherWords * 8
    this.#plainAt = this.#queryAt + maxQueryCiphertexts * this.#cipherWords * 8
    const bytes = this.#plainAt + plaintexts.length * this.#plainWords * 8
    this.#kernel = new WebAssembly.Instance(kernelModule()).exports as unknown as KernelExports
    const memory = this.#kernel.memory
    memory.grow(Math.max(0, Math.ceil(bytes / PAGE) - memory.buffer.byteLength / PAGE))
    new BigUint64Array(memory.buffer, this.#primesAt, shape.primes.length).set(shape.primes)
    const heap = new Uint8Array(memory.buffer)
    for (const [i, words] of plaintexts.entries()) {
      this.#expectWords(words, this.#plainWords, `plaintext ${i}`)
      heap.set(words, this.#plainAt + i * this.#plainWords * 8)
    }
  }

  /** Bytes of the kernel's own WebAssembly memory (primes, accumulator, query slots, every plaintext). */
  get heapBytes(): number {
    return this.#kernel.memory.buffer.byteLength
  }

  /**
   * Copies one query's ciphertexts (polys × primes × n words each) into the kernel.
   * `verify`: refuse (INVALID_ENVELOPE) any residue at or above its prime — for words
   * that did not come through SEAL's load, which checks the same.
   */
  loadQuery(ciphertexts: readonly Uint8Array[], { verify = false } = {}): void {
    this.#loaded = 0
    if (ciphertexts.length > this.maxQueryCiphertexts) {
      throw new RingError('INVALID_INPUT', `at most ${this.maxQueryCiphertexts} query ciphertexts`)
    }
    const heap = new Uint8Array(this.#kernel.memory.buffer)
    for (const [i, words] of ciphertexts.entries()) {
      this.#expectWords(words, this.#cipherWords, `query ciphertext ${i}`)
      const at = this.#queryAt + i * this.#cipherWords * 8
      heap.set(words, at)
      if (verify) {
        const { polys, primes, polyModulusDegree: n } = this.shape
        const unreduced = this.#kernel.countUnreduced(at, polys, primes.length, n, this.#primesAt)
        if (unreduced > 0) {
          throw new RingError(
            'INVALID_ENVELOPE',
            `query ciphertext ${i} has ${unreduced} coefficients at or above their prime: it is not valid for these parameters`,
          )
        }
      }
    }
    this.#loaded = ciphertexts.length
  }

  /**
   * Σ_a query[a] ⊙ plaintext[plaintexts[a]], reduced mod each prime: the residues of the
   * result ciphertext in SEAL's layout. The view is valid until the next call.
   */
  sum(plaintexts: readonly number[]): Uint8Array {
    if (plaintexts.length > this.#loaded) {
      throw new RingError('INVALID_INPUT', `${plaintexts.length} terms but ${this.#loaded} query ciphertexts loaded`)
    }
    const { polys, primes, polyModulusDegree: n } = this.shape
    const kernel = this.#kernel
    const accBytes = this.#cipherWords * 8
    new Uint8Array(kernel.memory.buffer, this.#accAt, accBytes).fill(0)
    for (const [a, index] of plaintexts.entries()) {
      if (!Number.isInteger(index) || index < 0 || index >= this.plaintextCount) {
        throw new RingError('INVALID_INPUT', `no plaintext ${index} (there are ${this.plaintextCount})`)
      }
      // Reduced words take `headroom` more products; reduce before the next would overflow.
      if (a > 0 && a % this.#headroom === 0) kernel.reduce(this.#accAt, polys, primes.length, n, this.#primesAt)
      const x = this.#queryAt + a * accBytes
      const p = this.#plainAt + index * this.#plainWords * 8
      kernel.mulAccumulate(this.#accAt, x, p, polys, this.#plainWords)
    }
    kernel.reduce(this.#accAt, polys, primes.length, n, this.#primesAt)
    return new Uint8Array(kernel.memory.buffer, this.#accAt, accBytes)
  }

  #expectWords(bytes: Uint8Array, words: number, what: string): void {
    if (bytes.byteLength !== words * 8) {
      throw new RingError('INVALID_INPUT', `${what} has ${bytes.byteLength} bytes, expected ${words * 8}`)
    }
  }
}
