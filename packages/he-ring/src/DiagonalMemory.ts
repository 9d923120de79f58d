import { RingError } from './RingError.ts'

const PAGE = 65536
/** 4 GiB: a 32-bit memory's limit, and the maximum a shared memory must declare. */
const MAX_PAGES = 65536
/** The first page is the header (state, top, metadata location); regions start after it. */
const FIRST_REGION = PAGE

/** Int32 slots of the header. */
const STATE = 0
const BUILDER = 1
/** u32 slots of the header. */
const TOP = 2
const META_AT = 3
const META_BYTES = 4

/**
 * Where a diagonal memory stands, read by every thread that holds it:
 * `empty` (nobody builds it), `building` (one thread writes the diagonals), `ready`
 * (written and published with its metadata: read only from now on), `unused` (the builder
 * found its search does not run in the key-switching kernel: every thread keeps its own).
 */
export type DiagonalMemoryState = 'empty' | 'building' | 'ready' | 'unused'
const STATES: readonly DiagonalMemoryState[] = ['empty', 'building', 'ready', 'unused']

/** ES2024's Atomics.waitAsync (in Node 16+ and every current browser; our lib is ES2023). */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> }
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync

function stateCode(state: DiagonalMemoryState): number {
  return STATES.indexOf(state)
}

/** Whether this host can share a WebAssembly memory between threads (browsers: only cross-origin isolated). */
export function canShareWasmMemory(): boolean {
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true })
    return true
  } catch {
    return false
  }
}

/**
 * The memory `RnsKernel` reads a processed database's diagonals from (the kernel's second
 * memory, WebAssembly multi-memory): u32 residues written once, then read only. A shared
 * one (SharedArrayBuffer-backed) is made once per node and posted to every worker thread,
 * so a node holds one copy of the diagonals however many threads search them; each
 * thread's kernel keeps only its own tables, keys and scratch in its own heap.
 *
 * The first page is a header every thread reads with `Atomics`: the state, who builds,
 * the allocation top and where the builder's metadata (the layout of the diagonals, as
 * bytes the caller defines) was published. `claim` elects one builder; the others
 * `whenSettled` and then attach to what it `publish`ed. Up to 4 GiB (a 32-bit memory).
 */
export class DiagonalMemory {
  readonly memory: WebAssembly.Memory
  readonly shared: boolean

  private constructor(memory: WebAssembly.Memory, shared: boolean) {
    this.memory = memory
    this.shared = shared
  }

  /** A fresh view each time: growing an unshared memory detaches its old buffer. */
  get #header(): Int32Array {
    return new Int32Array(this.memory.buffer, 0, 8)
  }

  /**
   * A new, empty memory: shared when `shared` is true (throws INVALID_INPUT where the host
   * cannot share one), a thread's own otherwise.
   */
  static create(options: { shared?: boolean } = {}): DiagonalMemory {
    const shared = options.shared ?? false
    let memory: WebAssembly.Memory
    try {
      memory = new WebAssembly.Memory({ initial: FIRST_REGION / PAGE, maximum: MAX_PAGES, shared })
    } catch (error) {
      throw new RingError(
        'INVALID_INPUT',
        `this host cannot make a ${shared ? 'shared ' : ''}WebAssembly memory: ${(error as Error).message}`,
      )
    }
    const diagonals = new DiagonalMemory(memory, shared)
    new Uint32Array(memory.buffer, 0, 8)[TOP] = FIRST_REGION
    return diagonals
  }

  /** Another thread's shared memory (posted here), as it stands. */
  static attach(memory: unknown): DiagonalMemory {
    if (!(memory instanceof WebAssembly.Memory) || !(memory.buffer instanceof SharedArrayBuffer)) {
      throw new RingError('INVALID_INPUT', 'a diagonal memory to attach must be a shared WebAssembly.Memory')
    }
    if ((memory.buffer as SharedArrayBuffer).byteLength < FIRST_REGION) {
      throw new RingError('INVALID_INPUT', 'the memory has no diagonal header: make it with DiagonalMemory.create')
    }
    return new DiagonalMemory(memory, true)
  }

  get state(): DiagonalMemoryState {
    return STATES[Atomics.load(this.#header, STATE)] ?? 'empty'
  }

  /** Bytes in use: the header page and every region allocated. */
  get bytes(): number {
    return Atomics.load(this.#u32(), TOP)
  }

  /** Bytes the memory spans (what it holds resident at most). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength
  }

  /**
   * Elects this thread (any nonzero `builder` id, e.g. its thread id) to build when nobody
   * does: true when it must now build and then `publish`, `publishUnused` or `release`.
   */
  claim(builder: number): boolean {
    const won = Atomics.compareExchange(this.#header, STATE, stateCode('empty'), stateCode('building'))
    if (won !== stateCode('empty')) return false
    Atomics.store(this.#header, BUILDER, builder)
    return true
  }

  /** The id that claimed the build (0: none). */
  get builder(): number {
    return Atomics.load(this.#header, BUILDER)
  }

  /** Resolves when the memory is no longer `building` (at once when it is not). */
  async whenSettled(): Promise<DiagonalMemoryState> {
    // A pending Atomics.waitAsync does not keep a thread's event loop alive: a timer does.
    const keepAlive = setInterval(() => {}, 60_000)
    try {
      for (;;) {
        const code = Atomics.load(this.#header, STATE)
        if (code !== stateCode('building')) return STATES[code] ?? 'empty'
        const wait = waitAsync(this.#header, STATE, code)
        if (wait.async) await wait.value
      }
    } finally {
      clearInterval(keepAlive)
    }
  }

  /** A region of `words` u32 words (16-byte aligned), as a byte offset. Only the builder allocates. */
  alloc(words: number): number {
    const u32 = this.#u32()
    const at = u32[TOP] as number
    const top = Math.ceil((at + words * 4) / 16) * 16
    const pages = Math.ceil(top / PAGE) - this.memory.buffer.byteLength / PAGE
    if (top > MAX_PAGES * PAGE) {
      throw new RingError(
        'INVALID_INPUT',
        `the diagonals need more than the 4 GiB a WebAssembly memory holds (${top} bytes): serve fewer rows`,
      )
    }
    if (pages > 0) this.memory.grow(pages)
    Atomics.store(this.#u32(), TOP, top)
    return at
  }

  /** A view of `count` u32 words at byte offset `at`. */
  words(at: number, count: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, at, count)
  }

  /** The builder is done: `metadata` (the layout, as the caller encodes it) is stored and the memory is `ready`. */
  publish(metadata: Uint8Array): void {
    this.#assertBuilding('publish')
    const at = this.alloc(Math.ceil(metadata.byteLength / 4))
    new Uint8Array(this.memory.buffer, at, metadata.byteLength).set(metadata)
    const u32 = this.#u32()
    Atomics.store(u32, META_AT, at)
    Atomics.store(u32, META_BYTES, metadata.byteLength)
    this.#settle('ready')
  }

  /** The builder's search does not use this memory: every thread keeps its own copy. */
  publishUnused(): void {
    this.#assertBuilding('publishUnused')
    this.#settle('unused')
  }

  /**
   * Gives the build up (it failed, or its thread is gone: `builder` must match the claim):
   * the memory is `empty` again for another thread to claim. The pages stay (a WebAssembly
   * memory never shrinks) and are reused.
   */
  release(builder: number): boolean {
    if (Atomics.load(this.#header, BUILDER) !== builder || this.state !== 'building') return false
    Atomics.store(this.#u32(), TOP, FIRST_REGION)
    Atomics.store(this.#header, BUILDER, 0)
    this.#settle('empty')
    return true
  }

  /** The bytes the builder published (a copy). */
  metadata(): Uint8Array {
    if (this.state !== 'ready') throw new RingError('INTERNAL', `the diagonal memory is ${this.state}, not ready`)
    const u32 = this.#u32()
    const at = Atomics.load(u32, META_AT)
    return new Uint8Array(this.memory.buffer, at, Atomics.load(u32, META_BYTES)).slice()
  }

  #settle(state: DiagonalMemoryState): void {
    Atomics.store(this.#header, STATE, stateCode(state))
    if (this.shared) Atomics.notify(this.#header, STATE)
  }

  #assertBuilding(what: string): void {
    if (this.state !== 'building') throw new RingError('INTERNAL', `${what} without a claim (${this.state})`)
  }

  #u32(): Uint32Array {
    return new Uint32Array(this.memory.buffer, 0, 8)
  }
}
