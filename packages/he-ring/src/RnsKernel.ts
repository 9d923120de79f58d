import { DiagonalMemory } from './DiagonalMemory.ts'
import { KEY_SWITCH_LOCAL_WASM, KEY_SWITCH_WASM } from './keySwitchWasm.ts'
import { modInverse } from './powMod.ts'
import { productHeadroom } from './productHeadroom.ts'
import { RingError } from './RingError.ts'
import { galoisPermutation, nttTables, shoup } from './rnsTables.ts'
import { wasmModule } from './wasmModule.ts'

/** What the kernel works on: SEAL's key level (data primes, then the one special prime). */
export interface RnsKernelShape {
  polyModulusDegree: number
  /** The primes of the first data level, then the special prime (SEAL's key modulus). */
  keyPrimes: readonly bigint[]
  plainModulus: bigint
  /** The Galois elements it rotates by (their permutations are built once). */
  galoisElements: readonly number[]
}

/**
 * A user's Galois keys as the kernel reads them: per element, u32 residues in SEAL's
 * order — decomposition component j < L, then polynomial K < 2, then key-level prime
 * i < L + 1, then coefficient — all in NTT form.
 */
export interface GaloisKeyWords {
  readonly elements: ReadonlyMap<number, Uint32Array>
  readonly bytes: number
}

interface KernelExports {
  ntt(a: number, n: number, tab: number, p: number): void
  intt(a: number, n: number, tab: number, p: number): void
  nttLazy(a: number, n: number, tab: number, p: number): void
  inttLazy(a: number, n: number, tab: number, p: number): void
  mulScalar(a: number, len: number, w: number, wq: number, p: number): void
  lift(dst: number, src: number, len: number, one: number, p: number): void
  permute(dst: number, src: number, table: number, n: number): void
  mulAcc(acc: number, x: number, y: number, len: number): void
  mulAccDiagonal(acc: number, x: number, y: number, len: number, accOff: number, xOff: number): void
  mulAccPermuted(acc0: number, acc1: number, x: number, table: number, y0: number, y1: number, len: number): void
  reduce(dst: number, acc: number, len: number, c: number, cq: number, one: number, p: number): void
  addInto(dst: number, src: number, len: number, p: number): void
  keyProduct(
    out0: number,
    out1: number,
    d: number,
    dStride: number,
    key: number,
    keyStride: number,
    key1Off: number,
    count: number,
    len: number,
    fold: number,
    c: number,
    cq: number,
    one: number,
    p: number,
  ): void
  modDownDelta(
    delta: number,
    tl: number,
    len: number,
    t: number,
    k: number,
    kq: number,
    q: number,
    qOne: number,
    pModQ: number,
    pModQq: number,
  ): void
  modDownFinish(dst: number, c: number, delta: number, len: number, inv: number, invq: number, q: number): void
}

interface PrimeConstants {
  p: number
  /** ⌊2^32/p⌋: Shoup's companion of 1. */
  one: number
  /** 2^32 mod p and its companion (reducing u64 sums). */
  c: number
  cq: number
  nInv: number
  nInvQ: number
  forwardAt: number
  inverseAt: number
  /** p < 2^30: the transforms run Harvey's lazy butterflies (`nttLazy`, `inttLazy`). */
  lazy: boolean
  /** Data primes only: the special prime P mod p, P⁻¹ mod p, with companions. */
  specialMod: number
  specialModQ: number
  specialInv: number
  specialInvQ: number
}

const PAGE = 65536
/** Primes (and t) below 2^31: Shoup's products stay below 2p < 2^32 before their last correction. */
export const RNS_KERNEL_MAX_BITS = 31
/** Below 2^30, 4p fits a u32 word: the NTTs may leave values up to 4p between stages (keySwitch.wat). */
const LAZY_PRIME_LIMIT = 1n << 30n
const compiled: { shared?: WebAssembly.Module; local?: WebAssembly.Module } = {}

/** The module whose diagonals memory is declared shared (or not): an import's flag must match. */
function kernelModule(shared: boolean): WebAssembly.Module {
  if (shared) {
    compiled.shared ??= wasmModule(KEY_SWITCH_WASM)
    return compiled.shared
  }
  compiled.local ??= wasmModule(KEY_SWITCH_LOCAL_WASM)
  return compiled.local
}

/** Options of `RnsKernel`. */
export interface RnsKernelOptions {
  /**
   * Where `innerProduct` reads its plaintexts: a memory shared with other threads' kernels
   * (one copy of a database's diagonals per node). Default: a memory of this kernel's own.
   */
  diagonals?: DiagonalMemory
}

let compiles: boolean | undefined

/**
 * Whether this host compiles the kernel (SIMD and multi-memory: Node 22+, current Chrome and
 * Firefox). Where it does not, callers run the search in SEAL's evaluator instead.
 */
export function rnsKernelCompiles(): boolean {
  if (compiles === undefined) {
    try {
      kernelModule(false)
      compiles = true
    } catch {
      compiles = false
    }
  }
  return compiles
}

/**
 * Whether the kernel takes these primes: at least one data prime and the special prime, all (and t) below 2^31.
 */
export function rnsKernelApplies(keyPrimes: readonly bigint[], plainModulus: bigint): boolean {
  const limit = 1n << BigInt(RNS_KERNEL_MAX_BITS)
  return keyPrimes.length >= 2 && plainModulus < limit && keyPrimes.every((p) => p < limit)
}

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
  readonly #x: KernelExports
  readonly #primes: PrimeConstants[]
  readonly #permutations = new Map<number, number>()
  readonly #keyAt = new Map<number, number>()
  #keyOwner: GaloisKeyWords | undefined
  readonly #t: { t: number; k: number; kq: number }
  /** The same for dropping the last data prime (a BGV mod switch), with its constants per lower prime. */
  readonly #switch: { k: number; kq: number; mod: number[]; modQ: number[]; inv: number[]; invQ: number[] }
  #top = 16
  // Scratch of one key switch.
  /** `rotate`'s decomposition of the permuted c1: component j at key-level prime i, as `#digitsAt`. */
  readonly #rotationDigitsAt: number
  /** Digits summed per `keyProduct` call (the u64 headroom of the key-level primes). */
  readonly #keyTerms: number
  readonly #coeffAt: number
  readonly #operandAt: number
  readonly #acc64At: number
  readonly #resultAt: number
  readonly #deltaAt: number
  /** Hoisting: the decomposition of one ciphertext's c1 (component j at every key-level prime i). */
  readonly #digitsAt: number
  /** The ciphertext whose decomposition `#digitsAt` holds (`decompose`), or undefined. */
  #decomposed: number | undefined
  /** `innerProduct`'s u64 accumulator of one ciphertext, and a ciphertext of ones. */
  readonly #product: { acc64: number; ones: number }
  /** Products of two data-prime residues a u64 word takes before a reduction. */
  readonly #headroom: number

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
    this.#x = new WebAssembly.Instance(kernelModule(this.diagonals.shared), {
      ring: { heap: this.#heap, diagonals: this.diagonals.memory },
    }).exports as unknown as KernelExports
    const special = shape.keyPrimes[this.L] as bigint
    this.#primes = shape.keyPrimes.map((p, i) => {
      const { forward, inverse } = nttTables(n, p)
      const forwardAt = this.alloc(2 * n)
      this.words(forwardAt, 2 * n).set(forward)
      const inverseAt = this.alloc(2 * n)
      this.words(inverseAt, 2 * n).set(inverse)
      const c = (1n << 32n) % p
      const nInv = modInverse(BigInt(n), p)
      const data = i < this.L
      const specialMod = data ? special % p : 0n
      const specialInv = data ? modInverse(special, p) : 0n
      return {
        p: Number(p),
        one: shoup(1n, p),
        c: Number(c),
        cq: shoup(c, p),
        nInv: Number(nInv),
        nInvQ: shoup(nInv, p),
        forwardAt,
        inverseAt,
        lazy: p < LAZY_PRIME_LIMIT,
        specialMod: Number(specialMod),
        specialModQ: shoup(specialMod, p),
        specialInv: Number(specialInv),
        specialInvQ: shoup(specialInv, p),
      }
    })
    const t = shape.plainModulus
    // k = −tl·P⁻¹ mod t = (tl mod t)·(t − P⁻¹ mod t) mod t.
    const k = (t - modInverse(special, t)) % t
    this.#t = { t: Number(t), k: Number(k), kq: shoup(k, t) }
    const last = shape.keyPrimes[this.L - 1] as bigint
    const lower = shape.keyPrimes.slice(0, this.L - 1)
    const kSwitch = (t - modInverse(last, t)) % t
    this.#switch = {
      k: Number(kSwitch),
      kq: shoup(kSwitch, t),
      mod: lower.map((q) => Number(last % q)),
      modQ: lower.map((q) => shoup(last % q, q)),
      inv: lower.map((q) => Number(modInverse(last, q))),
      invQ: lower.map((q) => shoup(modInverse(last, q), q)),
    }
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
    this.#operandAt = this.alloc(n)
    this.#acc64At = this.alloc(4 * n)
    this.#resultAt = this.alloc(2 * (L + 1) * n)
    this.#deltaAt = this.alloc(n)
    this.#digitsAt = this.alloc(L * (L + 1) * n)
    this.#headroom = productHeadroom(shape.keyPrimes.slice(0, L))
    // Reserved here, with the rest: the heap is fixed once the kernel is built.
    this.#product = { acc64: this.alloc(4 * L * n), ones: this.alloc(2 * L * n) }
    this.words(this.#product.ones, 2 * L * n).fill(1)
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
    const c = this.#primes[prime] as PrimeConstants
    if (c.lazy) this.#x.nttLazy(at, this.n, c.forwardAt, c.p)
    else this.#x.ntt(at, this.n, c.forwardAt, c.p)
  }

  /** Inverse NTT of the polynomial at `at` mod key-level prime `prime`. */
  intt(at: number, prime: number): void {
    const c = this.#primes[prime] as PrimeConstants
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
    const c = this.#primes[prime] as PrimeConstants
    this.#x.reduce(dst, acc, len, c.c, c.cq, c.one, c.p)
  }

  /** dst += src mod key-level prime `prime`, `len` words. */
  addInto(dst: number, src: number, len: number, prime: number): void {
    this.#x.addInto(dst, src, len, (this.#primes[prime] as PrimeConstants).p)
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
    if (ciphertexts.length < plaintexts.length) {
      throw new RingError('INTERNAL', `${plaintexts.length} plaintexts but ${ciphertexts.length} ciphertexts`)
    }
    const words = this.ciphertextWords
    const plainWords = this.L * this.n
    const { acc64, ones } = this.#product
    this.words(acc64, 2 * words).fill(0)
    for (const [a, plaintext] of plaintexts.entries()) {
      if (a > 0 && a % this.#headroom === 0) {
        // Fold the sum so far back in as one reduced term (× 1).
        this.#reduceCiphertext(target, acc64)
        this.words(acc64, 2 * words).fill(0)
        this.mulAcc(acc64, target, ones, words)
      }
      const ciphertext = ciphertexts[a] as number
      this.#x.mulAccDiagonal(acc64, ciphertext, plaintext, plainWords, plainWords * 8, plainWords * 4)
    }
    this.#reduceCiphertext(target, acc64)
  }

  #reduceCiphertext(target: number, acc64: number): void {
    const { n, L } = this
    for (let K = 0; K < 2; K++) {
      for (let i = 0; i < L; i++) {
        const poly = K * L + i
        this.reduce(target + poly * n * 4, acc64 + poly * n * 8, n, i)
      }
    }
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
        const prime = this.#primes[i] as PrimeConstants
        x.lift(digitAt(j, i), coeff, n, prime.one, prime.p)
        this.ntt(digitAt(j, i), i)
      }
    }
    this.words(dst + L * poly, L * n).fill(0)
    // Σ_j digit_j ⊙ key_j at every key-level prime i, both key polynomials in one pass.
    const terms = this.#keyTerms
    for (let i = 0; i <= L; i++) {
      const c = this.#primes[i] as PrimeConstants
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
    this.#modDown(dst)
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
        const prime = this.#primes[i] as PrimeConstants
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
    const reduceBoth = (i: number, c: PrimeConstants) => {
      for (let K = 0; K < 2; K++) {
        x.reduce(this.#resultAt + (K * (L + 1) + i) * poly, this.#acc64At + K * 2 * poly, n, c.c, c.cq, c.one, c.p)
      }
    }
    for (let i = 0; i <= L; i++) {
      const c = this.#primes[i] as PrimeConstants
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
    this.#modDown(dst)
  }

  /**
   * BGV's mod switch of the ciphertext at src (2·L·n words) to the next level: dst
   * (2·(L − 1)·n words) = (c − δ)·q⁻¹ at each remaining prime, q the last data prime and
   * δ ≡ c mod q, δ ≡ 0 mod t (SEAL's mod_t_and_divide_q_last_ntt_inplace). The message is
   * multiplied by q⁻¹ mod t, which SEAL's header records as the correction factor.
   */
  modSwitch(dst: number, src: number): void {
    const { n, L } = this
    const x = this.#x
    const poly = n * 4
    if (L < 2) throw new RingError('INTERNAL', 'a mod switch needs two data primes')
    const { t } = this.#t
    const sw = this.#switch
    const tl = this.#operandAt
    for (let K = 0; K < 2; K++) {
      this.words(tl, n).set(this.words(src + (K * L + L - 1) * poly, n))
      this.intt(tl, L - 1)
      for (let i = 0; i < L - 1; i++) {
        const c = this.#primes[i] as PrimeConstants
        const out = dst + (K * (L - 1) + i) * poly
        this.words(out, n).fill(0)
        x.modDownDelta(this.#deltaAt, tl, n, t, sw.k, sw.kq, c.p, c.one, sw.mod[i] as number, sw.modQ[i] as number)
        this.ntt(this.#deltaAt, i)
        x.modDownFinish(out, src + (K * L + i) * poly, this.#deltaAt, n, sw.inv[i] as number, sw.invQ[i] as number, c.p)
      }
    }
  }

  /** dst[K] += (result[K] − δ)·P⁻¹ at each data prime, for K = 0, 1 (BGV). */
  #modDown(dst: number): void {
    const { n, L } = this
    const x = this.#x
    const poly = n * 4
    const { t, k, kq } = this.#t
    for (let K = 0; K < 2; K++) {
      const tl = this.#resultAt + (K * (L + 1) + L) * poly
      this.intt(tl, L)
      for (let i = 0; i < L; i++) {
        const c = this.#primes[i] as PrimeConstants
        x.modDownDelta(this.#deltaAt, tl, n, t, k, kq, c.p, c.one, c.specialMod, c.specialModQ)
        this.ntt(this.#deltaAt, i)
        x.modDownFinish(
          dst + (K * L + i) * poly,
          this.#resultAt + (K * (L + 1) + i) * poly,
          this.#deltaAt,
          n,
          c.specialInv,
          c.specialInvQ,
          c.p,
        )
      }
    }
  }
}
