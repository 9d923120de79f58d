import { BgvModDown } from './BgvModDown.ts'
import { DiagonalInnerProduct } from './DiagonalInnerProduct.ts'
import { DiagonalMemory } from './DiagonalMemory.ts'
import type { GaloisKeyWords } from './GaloisKeyWords.ts'
import { productHeadroom } from './productHeadroom.ts'
import { RingError } from './RingError.ts'
import type { RnsKernelCore } from './RnsKernelCore.ts'
import type { RnsKernelOptions, RnsKernelShape } from './RnsKernelShape.ts'
import { rnsKernelApplies } from './rnsKernelApplies.ts'
import { type RnsKernelExports, rnsKernelModule } from './rnsKernelModule.ts'
import { type PlacedPrime, rnsKernelTables } from './rnsKernelTables.ts'
import { galoisPermutation } from './rnsTables.ts'

const PAGE = 65536

/**
 * BGV Galois key switching on RNS residues below 2^31, outside SEAL, in a hand-written
 * WebAssembly module (keySwitch.wat): SEAL's algorithm step for step (evaluator.cpp
 * switch_key_inplace) — the automorphism as a permutation of NTT slots, the target's
 * inverse NTT, its decomposition into one component per data prime lifted to every
 * key-level prime, products with the key, and BGV's mod-down by the special prime —
 * with every product a 32-bit Shoup product instead of SEAL's emulated 128-bit ones.
 *
 * Memory is two linear memories. The kernel's own heap: `alloc` hands out regions (u32
 * words) that live as long as the kernel — tables, keys, ciphertexts, scratch. And
 * `diagonals` (a `DiagonalMemory`, possibly shared by every thread of a node), where
 * `innerProduct` reads its plaintexts. Ciphertexts are 2 × L residue polynomials (L data
 * primes), SEAL's order. Not re-entrant: one thread, one operation at a time.
 */
export class RnsKernel {
  readonly n: number
  /** Data primes (the special prime is index L). */
  readonly L: number
  readonly shape: RnsKernelShape
  /** Where `innerProduct`'s plaintexts are (read only here). */
  readonly diagonals: DiagonalMemory
  readonly #heap: WebAssembly.Memory
  readonly #x: RnsKernelExports
  readonly #primes: PlacedPrime[]
  readonly #permutations = new Map<number, number>()
  readonly #keyAt = new Map<number, number>()
  #keyOwner: GaloisKeyWords | undefined
  /** BGV's mod-down by the special prime and mod switch by the last data prime. */
  readonly #modDown: BgvModDown
  #top = 16
  // Scratch of one key switch.
  /** `rotate`'s decomposition of the permuted c1: component j at key-level prime i, as `#digitsAt`. */
  readonly #rotationDigitsAt: number
  /** Digits summed per `keyProduct` call (the u64 headroom of the key-level primes). */
  readonly #keyTerms: number
  readonly #coeffAt: number
  readonly #acc64At: number
  readonly #resultAt: number
  /** Hoisting: the decomposition of one ciphertext's c1 (component j at every key-level prime i). */
  readonly #digitsAt: number
  /** The ciphertext whose decomposition `#digitsAt` holds (`decompose`), or undefined. */
  #decomposed: number | undefined
  /** `innerProduct`, on its own scratch. */
  readonly #innerProduct: DiagonalInnerProduct

  constructor(shape: RnsKernelShape, options: RnsKernelOptions = {}) {
    if (!rnsKernelApplies(shape.keyPrimes, shape.plainModulus)) {
      throw new RingError('INVALID_PARAMS', 'the key-switching kernel needs every prime and t below 2^31')
    }
    this.shape = shape
    const n = shape.polyModulusDegree
    this.n = n
    this.L = shape.keyPrimes.length - 1
    this.diagonals = options.diagonals ?? DiagonalMemory.create()
    this.#heap = new WebAssembly.Memory({ initial: 1 })
    this.#x = new WebAssembly.Instance(rnsKernelModule(this.diagonals.shared), {
      ring: { heap: this.#heap, diagonals: this.diagonals.memory },
    }).exports as unknown as RnsKernelExports
    const tables = rnsKernelTables(shape)
    this.#primes = tables.primes.map(({ forward, inverse, ...constants }) => {
      const forwardAt = this.alloc(2 * n)
      this.words(forwardAt, 2 * n).set(forward)
      const inverseAt = this.alloc(2 * n)
      this.words(inverseAt, 2 * n).set(inverse)
      return { ...constants, forwardAt, inverseAt }
    })
    for (const element of shape.galoisElements) {
      const at = this.alloc(n)
      this.words(at, n).set(galoisPermutation(n, element))
      this.#permutations.set(element, at)
      this.#keyAt.set(element, this.alloc(2 * this.L * (this.L + 1) * n))
    }
    const L = this.L
    this.#rotationDigitsAt = this.alloc(L * (L + 1) * n)
    this.#keyTerms = productHeadroom(shape.keyPrimes)
    this.#coeffAt = this.alloc(L * n)
    const operandAt = this.alloc(n)
    this.#acc64At = this.alloc(4 * n)
    this.#resultAt = this.alloc(2 * (L + 1) * n)
    const deltaAt = this.alloc(n)
    const core: RnsKernelCore = {
      n,
      L,
      exports: this.#x,
      primes: this.#primes,
      ntt: (at, prime) => this.ntt(at, prime),
      intt: (at, prime) => this.intt(at, prime),
      reduce: (dst, acc, len, prime) => this.reduce(dst, acc, len, prime),
      words: (at, count) => this.words(at, count),
    }
    this.#modDown = new BgvModDown(core, tables, { operandAt, deltaAt, resultAt: this.#resultAt })
    this.#digitsAt = this.alloc(L * (L + 1) * n)
    // Reserved here, with the rest: the heap is fixed once the kernel is built.
    const product = { acc64: this.alloc(4 * L * n), ones: this.alloc(2 * L * n) }
    this.words(product.ones, 2 * L * n).fill(1)
    // Products of two data-prime residues a u64 word takes before a reduction.
    this.#innerProduct = new DiagonalInnerProduct(core, productHeadroom(shape.keyPrimes.slice(0, L)), product)
  }

  /** u32 words of one ciphertext (2 polynomials × L data primes × n). */
  get ciphertextWords(): number {
    return 2 * this.L * this.n
  }

  /** A region of `words` u32 words (16-byte aligned), as a byte offset. */
  alloc(words: number): number {
    const at = this.#top
    this.#top = Math.ceil((at + words * 4) / 16) * 16
    const memory = this.#heap
    const pages = Math.ceil(this.#top / PAGE) - memory.buffer.byteLength / PAGE
    if (pages > 0) memory.grow(pages)
    return at
  }

  /** Bytes of the kernel's own heap (not its diagonals: see `diagonals`). */
  get heapBytes(): number {
    return this.#heap.buffer.byteLength
  }

  /** A view of `count` u32 words at byte offset `at` (valid until the next `alloc`). */
  words(at: number, count: number): Uint32Array {
    return new Uint32Array(this.#heap.buffer, at, count)
  }

  /** Forward NTT (SEAL's form) of the polynomial at `at` mod key-level prime `prime`. */
  ntt(at: number, prime: number): void {
    const c = this.#primes[prime] as PlacedPrime
    if (c.lazy) this.#x.nttLazy(at, this.n, c.forwardAt, c.p)
    else this.#x.ntt(at, this.n, c.forwardAt, c.p)
  }

  /** Inverse NTT of the polynomial at `at` mod key-level prime `prime`. */
  intt(at: number, prime: number): void {
    const c = this.#primes[prime] as PlacedPrime
    if (c.lazy) this.#x.inttLazy(at, this.n, c.inverseAt, c.p)
    else this.#x.intt(at, this.n, c.inverseAt, c.p)
    this.#x.mulScalar(at, this.n, c.nInv, c.nInvQ, c.p)
  }

  /** acc (u64 words) += x ⊙ y (u32 words), `len` words, unreduced. */
  mulAcc(acc: number, x: number, y: number, len: number): void {
    this.#x.mulAcc(acc, x, y, len)
  }

  /** dst (u32) = acc (u64) mod key-level prime `prime`, `len` words. */
  reduce(dst: number, acc: number, len: number, prime: number): void {
    const c = this.#primes[prime] as PlacedPrime
    this.#x.reduce(dst, acc, len, c.c, c.cq, c.one, c.p)
  }

  /** dst += src mod key-level prime `prime`, `len` words. */
  addInto(dst: number, src: number, len: number, prime: number): void {
    this.#x.addInto(dst, src, len, (this.#primes[prime] as PlacedPrime).p)
  }

  /** dst += src, both ciphertexts (2 × L residue polynomials), mod each data prime. */
  addCiphertext(dst: number, src: number): void {
    const { n, L } = this
    for (let K = 0; K < 2; K++) {
      for (let i = 0; i < L; i++) {
        const poly = (K * L + i) * n * 4
        this.addInto(dst + poly, src + poly, n, i)
      }
    }
  }

  /**
   * target = Σ_a plaintexts[a] ⊙ ciphertexts[a], reduced mod each data prime: ciphertexts
   * of 2 × L residue polynomials in the kernel's heap, plaintexts of L in `diagonals`
   * (offsets of `diagonals.alloc`; both NTT form). The products sum
   * unreduced in u64 words, reduced once per `productHeadroom` terms.
   */
  innerProduct(target: number, ciphertexts: readonly number[], plaintexts: readonly number[]): void {
    this.#innerProduct.run(target, ciphertexts, plaintexts)
  }

  /** Copies `keys` into the kernel's key slots unless they are there already. */
  useKeys(keys: GaloisKeyWords): void {
    if (this.#keyOwner === keys) return
    this.#keyOwner = undefined
    for (const [element, at] of this.#keyAt) {
      const words = keys.elements.get(element)
      if (!words) throw new RingError('MISSING_KEY', `no Galois key for element ${element}`, { details: { element } })
      this.words(at, words.length).set(words)
    }
    this.#keyOwner = keys
  }

  /**
   * dst = the automorphism `element` of the ciphertext at src, key-switched back to the
   * secret key (SEAL's apply_galois_inplace). dst and src are 2·L·n words and must differ.
   */
  rotate(dst: number, src: number, element: number): void {
    const { n, L } = this
    const x = this.#x
    const { perm, key } = this.#prepared(element)
    const poly = n * 4
    const digits = this.#rotationDigitsAt
    const digitAt = (j: number, i: number) => digits + (j * (L + 1) + i) * poly
    // c0 and the target c1, permuted; the target's digits: in coefficient form, lifted to
    // every other key-level prime and transformed (component j at prime j is c1's own).
    for (let j = 0; j < L; j++) {
      x.permute(dst + j * poly, src + j * poly, perm, n)
      const own = digitAt(j, j)
      x.permute(own, src + (L + j) * poly, perm, n)
      const coeff = this.#coeffAt + j * poly
      this.words(coeff, n).set(this.words(own, n))
      this.intt(coeff, j)
      for (let i = 0; i <= L; i++) {
        if (i === j) continue
        const prime = this.#primes[i] as PlacedPrime
        x.lift(digitAt(j, i), coeff, n, prime.one, prime.p)
        this.ntt(digitAt(j, i), i)
      }
    }
    this.words(dst + L * poly, L * n).fill(0)
    // Σ_j digit_j ⊙ key_j at every key-level prime i, both key polynomials in one pass.
    const terms = this.#keyTerms
    for (let i = 0; i <= L; i++) {
      const c = this.#primes[i] as PlacedPrime
      for (let start = 0; start < L; start += terms) {
        x.keyProduct(
          this.#resultAt + i * poly,
          this.#resultAt + (L + 1 + i) * poly,
          digitAt(start, i),
          (L + 1) * poly,
          key + (start * 2 * (L + 1) + i) * poly,
          2 * (L + 1) * poly,
          (L + 1) * poly,
          Math.min(terms, L - start),
          n,
          start > 0 ? 1 : 0,
          c.c,
          c.cq,
          c.one,
          c.p,
        )
      }
    }
    this.#modDown.bySpecialPrime(dst)
  }

  /**
   * Hoisting, first half (Halevi–Shoup): decomposes the c1 of the ciphertext at src once —
   * each data prime's residues in coefficient form, lifted to every key-level prime and
   * transformed — for any number of `rotateHoisted` calls on the same src. The automorphism
   * commutes with all of it (a permutation of NTT slots), so each rotation then permutes the
   * digits instead of redoing L inverse and L² forward transforms.
   */
  decompose(src: number): void {
    const { n, L } = this
    const x = this.#x
    const poly = n * 4
    for (let j = 0; j < L; j++) {
      const c1 = src + (L + j) * poly
      const coeff = this.#coeffAt + j * poly
      this.words(coeff, n).set(this.words(c1, n))
      this.intt(coeff, j)
      for (let i = 0; i <= L; i++) {
        const digit = this.#digitsAt + (j * (L + 1) + i) * poly
        if (i === j) {
          this.words(digit, n).set(this.words(c1, n))
          continue
        }
        const prime = this.#primes[i] as PlacedPrime
        x.lift(digit, coeff, n, prime.one, prime.p)
        this.ntt(digit, i)
      }
    }
    this.#decomposed = src
  }

  /**
   * Hoisting, second half: `rotate(dst, src, element)` from the decomposition `decompose(src)`
   * made (src unchanged since). The digits are the automorphism of c1's digits rather than
   * the digits of the automorphism of c1 (gathered through the permutation in the
   * products, never written out): each coefficient may differ by its prime q_j, so
   * the words differ from SEAL's rotation, but they are as small (below q_j in absolute
   * value) and the result decrypts to the same message with the same noise bound.
   */
  rotateHoisted(dst: number, src: number, element: number): void {
    const { n, L } = this
    const x = this.#x
    const { perm, key } = this.#prepared(element)
    if (this.#decomposed !== src) throw new RingError('INTERNAL', 'rotateHoisted needs decompose(src) first')
    const poly = n * 4
    for (let j = 0; j < L; j++) x.permute(dst + j * poly, src + j * poly, perm, n)
    this.#switchKey(dst, key, (j, i, acc0, acc1, key0, key1) => {
      x.mulAccPermuted(acc0, acc1, this.#digitsAt + (j * (L + 1) + i) * poly, perm, key0, key1, n)
    })
  }

  #prepared(element: number): { perm: number; key: number } {
    const perm = this.#permutations.get(element)
    const key = this.#keyAt.get(element)
    if (perm === undefined || key === undefined || this.#keyOwner === undefined) {
      throw new RingError('INTERNAL', `the kernel was not prepared for Galois element ${element} with keys`)
    }
    return { perm, key }
  }

  /**
   * dst's c1 = 0, then dst += mod-down(Σ_j digit_j ⊙ key_j): `accumulate(j, i, …)` adds
   * digit j's products with the key's two polynomials at key-level prime i into the two
   * u64 accumulators.
   */
  #switchKey(
    dst: number,
    key: number,
    accumulate: (j: number, i: number, acc0: number, acc1: number, key0: number, key1: number) => void,
  ): void {
    const { n, L } = this
    const x = this.#x
    const poly = n * 4
    this.words(dst + L * poly, L * n).fill(0)
    // Σ_j component_j ⊙ key_j at every key-level prime i.
    const reduceBoth = (i: number, c: PlacedPrime) => {
      for (let K = 0; K < 2; K++) {
        x.reduce(this.#resultAt + (K * (L + 1) + i) * poly, this.#acc64At + K * 2 * poly, n, c.c, c.cq, c.one, c.p)
      }
    }
    for (let i = 0; i <= L; i++) {
      const c = this.#primes[i] as PlacedPrime
      this.words(this.#acc64At, 4 * n).fill(0)
      for (let j = 0; j < L; j++) {
        if (j > 0 && j % this.#keyTerms === 0) {
          // Past the u64 headroom (five or more digits at primes near 2^31): fold the sum so
          // far back in, reduced (rare: search params never get here, so plain JS will do).
          reduceBoth(i, c)
          for (let K = 0; K < 2; K++) {
            const acc = this.words(this.#acc64At + K * 2 * poly, 2 * n)
            const reduced = this.words(this.#resultAt + (K * (L + 1) + i) * poly, n)
            for (let k = 0; k < n; k++) {
              acc[2 * k] = reduced[k] as number
              acc[2 * k + 1] = 0
            }
          }
        }
        const keyAt = (K: number) => key + ((j * 2 + K) * (L + 1) + i) * poly
        accumulate(j, i, this.#acc64At, this.#acc64At + 2 * poly, keyAt(0), keyAt(1))
      }
      reduceBoth(i, c)
    }
    this.#modDown.bySpecialPrime(dst)
  }

  /** BGV's mod switch of the ciphertext at src (2·L·n words) to the next level, dst 2·(L − 1)·n words (`BgvModDown`). */
  modSwitch(dst: number, src: number): void {
    this.#modDown.modSwitch(dst, src)
  }
}
