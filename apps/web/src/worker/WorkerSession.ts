import {
  adopt,
  ContextCache,
  disown,
  type HeContext,
  HeError,
  type KeySet,
  type ParamsInput,
  parseParams,
  type SealHandle,
} from '@sealbox/he-core'
import type { Ciphertext, GaloisKeys, Plaintext, RelinKeys } from 'node-seal/throws'

/** A workspace value held in the worker. */
export type SessionValue =
  | { kind: 'ciphertext'; handle: Ciphertext /** The secret key it was encrypted under. */; keySetId?: string }
  | { kind: 'plaintext'; handle: Plaintext }

/** An evaluation key in use: the key set's own, or one loaded from a file (then the session owns it). */
interface EvaluationKey<T extends SealHandle> {
  handle: T
  owned: boolean
}

/**
 * Everything the worker holds between requests: the context of the current
 * parameters, the key set, evaluation keys and the workspace's values. It is their
 * one owner: replacing or dropping anything deletes the old SEAL object, and
 * changing parameters frees everything (values and keys first, then the context).
 */
export class WorkerSession {
  #cache = new ContextCache()
  #context: HeContext | undefined
  #paramsKey: string | undefined
  #keySet: KeySet | undefined
  #relin: EvaluationKey<RelinKeys> | undefined
  #galois: EvaluationKey<GaloisKeys> | undefined
  readonly #values = new Map<string, SessionValue>()

  /** Whether `params` are the ones in use: applying them again reuses the context, builds nothing. */
  holdsParams(params: ParamsInput): boolean {
    return this.#context !== undefined && JSON.stringify(parseParams(params)) === this.#paramsKey
  }

  /** Builds (or reuses) the context for `params`, dropping everything made under other params. */
  async applyParams(params: ParamsInput): Promise<HeContext> {
    const key = JSON.stringify(parseParams(params))
    if (this.#context && key === this.#paramsKey) return this.#context
    this.clearAll()
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
    if (!this.#context) throw new HeError('INVALID_INPUT', 'Create the context on the Parameters panel first.')
    return this.#context
  }

  // ------------------------------------------------------------ keys

  get keySet(): KeySet | undefined {
    return this.#keySet
  }

  /** The key set, or a plain-language error naming what to do. */
  requireKeySet(purpose: string): KeySet {
    if (!this.#keySet) {
      throw new HeError('MISSING_KEY', `${purpose} needs a secret key: generate or upload one on the Keys panel.`)
    }
    return this.#keySet
  }

  /**
   * Makes `keySet` the session's keys. Evaluation keys of another key set are
   * dropped; the key set's own relin/Galois keys become the ones in use.
   */
  setKeySet(keySet: KeySet): void {
    const sameOwner = this.#keySet?.id === keySet.id
    if (this.#keySet && this.#keySet !== keySet) {
      if (!sameOwner) {
        this.#dropRelin()
        this.#dropGalois()
      } else {
        if (this.#relin && !this.#relin.owned) this.#relin = undefined
        if (this.#galois && !this.#galois.owned) this.#galois = undefined
      }
      this.#keySet.dispose()
    }
    this.#keySet = keySet
    if (keySet.relinKeys) this.setRelinKeys(keySet.relinKeys, false)
    if (keySet.galoisKeys) this.setGaloisKeys(keySet.galoisKeys, false)
  }

  get relinKeys(): RelinKeys | undefined {
    return this.#relin?.handle
  }

  get galoisKeys(): GaloisKeys | undefined {
    return this.#galois?.handle
  }

  /** Uses `keys` for relinearization; `owned` when loaded from a file (the session then deletes it). */
  setRelinKeys(keys: RelinKeys, owned: boolean): void {
    if (this.#relin?.handle === keys) return
    this.#dropRelin()
    this.#relin = { handle: owned ? adopt(keys) : keys, owned }
  }

  setGaloisKeys(keys: GaloisKeys, owned: boolean): void {
    if (this.#galois?.handle === keys) return
    this.#dropGalois()
    this.#galois = { handle: owned ? adopt(keys) : keys, owned }
  }

  /** Forgets keys of these kinds (the secret key takes everything with it). */
  dropKeys(kinds: ReadonlyArray<'secretKey' | 'publicKey' | 'relinKeys' | 'galoisKeys'>): void {
    if (kinds.includes('relinKeys')) this.#dropRelin()
    if (kinds.includes('galoisKeys')) this.#dropGalois()
    if (kinds.includes('secretKey')) {
      this.#dropRelin()
      this.#dropGalois()
      this.#keySet?.dispose()
      this.#keySet = undefined
    }
  }

  #dropRelin(): void {
    if (this.#relin?.owned) disown(this.#relin.handle)
    this.#relin = undefined
  }

  #dropGalois(): void {
    if (this.#galois?.owned) disown(this.#galois.handle)
    this.#galois = undefined
  }

  // ------------------------------------------------------------ values

  value(name: string): SessionValue | undefined {
    return this.#values.get(name)
  }

  /** The value called `name`, or a plain-language error. */
  requireValue(name: string): SessionValue {
    const value = this.#values.get(name)
    if (!value) throw new HeError('NOT_FOUND', `There is no variable called '${name}'.`)
    return value
  }

  /** Stores `value` under `name` (taking ownership), deleting what was there. */
  setValue(name: string, value: SessionValue): void {
    this.dropValue(name)
    adopt(value.handle)
    this.#values.set(name, value)
  }

  dropValue(name: string): void {
    const old = this.#values.get(name)
    if (old) {
      disown(old.handle)
      this.#values.delete(name)
    }
  }

  /** Names of every value held. */
  valueNames(): string[] {
    return [...this.#values.keys()]
  }

  /** Frees every value of `kind` (e.g. ciphertexts of a secret key that was replaced). */
  dropValuesOfKind(kind: SessionValue['kind']): string[] {
    const names = [...this.#values].filter(([, value]) => value.kind === kind).map(([name]) => name)
    for (const name of names) this.dropValue(name)
    return names
  }

  /** Frees every value and key (parameters stay). */
  clearAll(): void {
    for (const name of [...this.#values.keys()]) this.dropValue(name)
    this.dropKeys(['secretKey'])
  }
}
