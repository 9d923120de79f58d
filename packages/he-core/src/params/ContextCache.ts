import { LRUCache } from 'lru-cache'
import { loadSeal } from '../seal/loadSeal.ts'
import { estimateContextBytes } from './estimateContextBytes.ts'
import { HeContext } from './HeContext.ts'
import type { ParamsInput, ResolvedParams } from './ParamsSpec.ts'
import { type ParseParamsOptions, parseParams } from './parseParams.ts'

/** The default budget of a cache's leased (evictable) contexts: about four CKKS n=16384 contexts. */
export const DEFAULT_CONTEXT_CACHE_BYTES = 256 * 2 ** 20

/** A context borrowed from a `ContextCache`: use it, then `release()` (or `using`). */
export interface ContextLease extends Disposable {
  readonly ctx: HeContext
  /** Gives the context back; an evicted context is deleted when its last lease ends. Idempotent. */
  release(): void
}

/** Options of a `ContextCache`. */
export interface ContextCacheOptions {
  /** Estimated WASM bytes the leased contexts may keep between uses (`estimateContextBytes`). */
  maxBytes?: number
}

interface Entry {
  key: string
  built: Promise<HeContext>
  context: HeContext | undefined
  leases: number
  /** Held by `get()` until `dispose()`: never evicted. */
  pinned: boolean
  /** In the LRU (an idle or leased evictable entry). */
  inLru: boolean
  bytes: number
}

/**
 * Owns built contexts, one per parameter set, because building one costs up to
 * 20 s (n=32768) and tens of megabytes of WASM heap. Two ways to hold one:
 *
 * - `acquire(params)` — a lease, for request-scoped work with parameters chosen by a
 *   caller (the server's evaluate). Leased contexts sit in an LRU bounded by
 *   estimated bytes (`maxBytes`); when it overflows, the least recently used
 *   context leaves the LRU and is deleted once no lease holds it, so a job never
 *   sees its context deleted under it.
 * - `get(params)` — pinned until `dispose()`, for the few long-lived contexts a
 *   program owns (the server's search parameters, a test, the sandbox's session).
 *
 * Inputs are validated (`parseParams`) before anything is built. Callers never
 * delete a context themselves.
 */
export class ContextCache implements Disposable {
  readonly #entries = new Map<string, Entry>()
  readonly #lru: LRUCache<string, Entry>

  constructor(options: ContextCacheOptions = {}) {
    const maxSize = options.maxBytes ?? DEFAULT_CONTEXT_CACHE_BYTES
    this.#lru = new LRUCache<string, Entry>({
      maxSize,
      // A context bigger than the whole budget is still built for its lease, and freed after it.
      maxEntrySize: maxSize,
      sizeCalculation: (entry) => entry.bytes,
      dispose: (entry) => {
        entry.inLru = false
        this.#collect(entry)
      },
    })
  }

  /** The context for `input` (validated first), built on first use and pinned until `dispose()`. */
  get(input: ParamsInput | ResolvedParams, options: ParseParamsOptions = {}): Promise<HeContext> {
    const entry = this.#entry(input, options)
    entry.pinned = true
    // Pinned contexts are not the LRU's to evict (removing it from there deletes nothing: it is pinned).
    if (entry.inLru) this.#lru.delete(entry.key)
    return entry.built
  }

  /**
   * A lease on the context for `input` (validated first, built on first use). The
   * context stays alive until the lease is released, even if the LRU evicts it.
   */
  async acquire(input: ParamsInput | ResolvedParams, options: ParseParamsOptions = {}): Promise<ContextLease> {
    const entry = this.#entry(input, options)
    entry.leases++
    if (!entry.pinned) {
      if (entry.inLru) this.#lru.get(entry.key)
      else {
        entry.inLru = true
        this.#lru.set(entry.key, entry)
        // Larger than the whole budget: not kept (lru-cache drops it silently); freed after its lease.
        if (!this.#lru.has(entry.key)) entry.inLru = false
      }
    }
    let ctx: HeContext
    try {
      ctx = await entry.built
    } catch (error) {
      entry.leases--
      throw error
    }
    let released = false
    const release = () => {
      if (released) return
      released = true
      entry.leases--
      this.#collect(entry)
    }
    return { ctx, release, [Symbol.dispose]: release }
  }

  /**
   * Whether the context for `input` (validated first) is built or being built here, so
   * that `acquire` or `get` would not build it: a caller that must not block for a
   * build (the server's inline executor) prices one by this before it asks.
   */
  has(input: ParamsInput | ResolvedParams, options: ParseParamsOptions = {}): boolean {
    return this.#entries.has(this.#keyOf(input, options).key)
  }

  /** A context already built here with this fingerprint (e.g. to load an envelope). */
  byFingerprint(fingerprint: string): HeContext | undefined {
    for (const entry of this.#entries.values()) if (entry.context?.fingerprint === fingerprint) return entry.context
    return undefined
  }

  /** Contexts alive (built or building), pinned, leased or idle. */
  get size(): number {
    return this.#entries.size
  }

  /** Estimated bytes of the evictable (leased or idle) contexts the LRU holds. */
  get evictableBytes(): number {
    return this.#lru.calculatedSize
  }

  /** Deletes every context, leased or not: the owner's shutdown. */
  dispose(): void {
    const entries = [...this.#entries.values()]
    this.#entries.clear()
    for (const entry of entries) {
      entry.pinned = false
      entry.leases = 0
    }
    this.#lru.clear()
    for (const entry of entries) entry.context?.dispose()
  }

  [Symbol.dispose](): void {
    this.dispose()
  }

  /** The validated parameters of `input` and the key they are cached under. */
  #keyOf(input: ParamsInput | ResolvedParams, options: ParseParamsOptions): { params: ResolvedParams; key: string } {
    // Resolved params are re-validated too: they may come from a file or a peer.
    const params = parseParams(isResolved(input) ? paramsInputOf(input) : input, options)
    return { params, key: JSON.stringify(params) }
  }

  #entry(input: ParamsInput | ResolvedParams, options: ParseParamsOptions): Entry {
    const { params, key } = this.#keyOf(input, options)
    const existing = this.#entries.get(key)
    if (existing) return existing
    const build = async (): Promise<HeContext> => {
      const context = new HeContext(await loadSeal(), params)
      entry.context = context
      // Evicted (or the cache disposed) while it was being built, and nobody holds it.
      if (this.#entries.get(key) !== entry) context.dispose()
      else this.#collect(entry)
      return context
    }
    const entry: Entry = {
      key,
      built: build(),
      context: undefined,
      leases: 0,
      pinned: false,
      inLru: false,
      bytes: estimateContextBytes(params),
    }
    entry.built.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key)
      if (entry.inLru) this.#lru.delete(key)
    })
    this.#entries.set(key, entry)
    return entry
  }

  /** Deletes an entry's context once nothing holds it: not pinned, not leased, out of the LRU. */
  #collect(entry: Entry): void {
    if (entry.pinned || entry.leases > 0 || entry.inLru) return
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key)
    // Still building: the build sees it is gone and deletes the context itself.
    entry.context?.dispose()
  }
}

function isResolved(input: unknown): input is ResolvedParams {
  return typeof input === 'object' && input !== null && Array.isArray((input as ResolvedParams).coeffModulusBits)
}

/** The spec that resolves to `params` (coefficient bit sizes explicit). */
export function paramsInputOf(params: ResolvedParams): ParamsInput {
  return {
    scheme: params.scheme,
    polyModulusDegree: params.polyModulusDegree,
    coeffModulus: [...params.coeffModulusBits],
    ...(params.plainModulus ? { plainModulus: params.plainModulus } : {}),
    ...(params.scaleBits !== undefined ? { scaleBits: params.scaleBits } : {}),
    security: params.security,
  }
}

const sharedCache = new ContextCache()

/** The thread's shared context cache (`getHeContext(spec)`, `acquireHeContext(spec)`). */
export function sharedContextCache(): ContextCache {
  return sharedCache
}

/** The shared, cached context for a parameter spec, pinned for the life of the thread. */
export function getHeContext(
  input: ParamsInput | ResolvedParams,
  options: ParseParamsOptions = {},
): Promise<HeContext> {
  return sharedCache.get(input, options)
}

/** A lease on the shared cache's context for a parameter spec (evictable once released). */
export function acquireHeContext(
  input: ParamsInput | ResolvedParams,
  options: ParseParamsOptions = {},
): Promise<ContextLease> {
  return sharedCache.acquire(input, options)
}
