import { ContextCache, type HeContext, HeError, type ParamsInput, parseParams } from '@sealbox/he-core'

/**
 * Everything the worker holds between requests: the context of the current
 * parameters and the SEAL objects made under it. It is their one owner: changing
 * parameters frees them all (objects first, then the old context).
 */
export class WorkerSession {
  #cache = new ContextCache()
  #context: HeContext | undefined
  #paramsKey: string | undefined

  /** Builds (or reuses) the context for `params`, dropping everything made under other params. */
  async applyParams(params: ParamsInput): Promise<HeContext> {
    const key = JSON.stringify(parseParams(params))
    if (this.#context && key === this.#paramsKey) return this.#context
    this.resetObjects()
    this.#context = undefined
    this.#paramsKey = undefined
    // One parameter set at a time: a context at n=32768 holds hundreds of MB.
    this.#cache.dispose()
    this.#cache = new ContextCache()
    this.#context = await this.#cache.get(params)
    this.#paramsKey = key
    return this.#context
  }

  /** The current context, or a coded error when parameters were not set yet. */
  get context(): HeContext {
    if (!this.#context) throw new HeError('INVALID_INPUT', 'Set the encryption parameters first.')
    return this.#context
  }

  /** Frees every key and variable. */
  resetObjects(): void {}
}
