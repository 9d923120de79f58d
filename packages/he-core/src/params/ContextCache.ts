import { loadSeal } from '../seal/loadSeal.ts'
import { HeContext } from './HeContext.ts'
import type { ParamsInput, ResolvedParams } from './ParamsSpec.ts'
import { type ParseParamsOptions, parseParams } from './parseParams.ts'

/**
 * Owns built contexts, one per parameter set, because building one costs up to
 * 20 s (n=32768). Contexts live until `dispose()`; callers never delete them.
 */
export class ContextCache implements Disposable {
  readonly #byKey = new Map<string, Promise<HeContext>>()
  readonly #byFingerprint = new Map<string, HeContext>()

  /** The context for `input` (validated first), building it on first use. */
  get(input: ParamsInput | ResolvedParams, options: ParseParamsOptions = {}): Promise<HeContext> {
    // Resolved params are re-validated too: they may come from a file or a peer.
    const params = parseParams(isResolved(input) ? paramsInputOf(input) : input, options)
    const key = JSON.stringify(params)
    let entry = this.#byKey.get(key)
    if (!entry) {
      entry = loadSeal().then((seal) => {
        const context = new HeContext(seal, params)
        this.#byFingerprint.set(context.fingerprint, context)
        return context
      })
      entry.catch(() => this.#byKey.delete(key))
      this.#byKey.set(key, entry)
    }
    return entry
  }

  /** A context already built here with this fingerprint (e.g. to load an envelope). */
  byFingerprint(fingerprint: string): HeContext | undefined {
    return this.#byFingerprint.get(fingerprint)
  }

  get size(): number {
    return this.#byFingerprint.size
  }

  /**
   * Drops every context without deleting it, for when their node-seal instance is
   * unusable (out of memory) and being replaced (`retireSeal`): the old heap goes
   * with the instance.
   */
  forget(): void {
    this.#byFingerprint.clear()
    this.#byKey.clear()
  }

  dispose(): void {
    for (const context of this.#byFingerprint.values()) context.dispose()
    this.#byFingerprint.clear()
    this.#byKey.clear()
  }

  [Symbol.dispose](): void {
    this.dispose()
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

/** The thread's shared context cache (`getHeContext(spec)`). */
export function sharedContextCache(): ContextCache {
  return sharedCache
}

/** The shared, cached context for a parameter spec. */
export function getHeContext(
  input: ParamsInput | ResolvedParams,
  options: ParseParamsOptions = {},
): Promise<HeContext> {
  return sharedCache.get(input, options)
}
