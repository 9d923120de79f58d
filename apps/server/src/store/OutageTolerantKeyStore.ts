import { HeError } from '@sealbox/he-core'
import { LRUCache } from 'lru-cache'
import type {
  KernelFormWrite,
  KeySetFacts,
  KeySetPutResult,
  KeySetRecord,
  KeyStore,
  KeyStoreLocation,
} from './KeyStore.ts'

/** The key store's health as this node sees it (`/readyz`, metrics). */
export interface KeyStoreHealth {
  /** `degraded`: the last call failed to reach the store; recently confirmed key sets are still served. */
  status: 'ok' | 'degraded'
  /** When the status last changed (ISO time). */
  since: string
  /** Why the store is degraded (its STORE_UNAVAILABLE message). */
  reason?: string
  /** Requests answered from a record confirmed before the outage, since start. */
  staleServes: number
}

/** Where the decorator reports each store call and each stale serve (`KeyStoreMetrics`). */
export interface KeyStoreObserver {
  call(op: string, result: 'ok' | 'unavailable' | 'error', seconds: number): void
  health(up: boolean): void
  staleServe(): void
}

/** Options of an `OutageTolerantKeyStore`. */
export interface OutageToleranceOptions {
  /**
   * How long after the store last confirmed a key-set record this node may keep using
   * it while the store is unreachable (KEY_STORE_STALE_MS); 0 serves nothing stale.
   */
  staleMs: number
  /** While degraded, at most one request per interval tries the store (the others are served stale). */
  probeIntervalMs?: number
  /** Most key-set records remembered (small: ids, digests, facts). */
  maxRecords?: number
  observer?: KeyStoreObserver
  log?: { warn(details: object, message: string): void; info(details: object, message: string): void }
  now?: () => number
}

interface Confirmed {
  record: KeySetRecord
  /** When the store last returned this record (ms). */
  at: number
}

/**
 * A `KeyStore` that keeps serving keyed work through a store outage. Every `get` still
 * asks the store while it answers, so a deletion or a replacement made through any node
 * is seen by the next request. When the store is unreachable (STORE_UNAVAILABLE), a
 * key-set record the store confirmed within `staleMs` is used instead: the job then runs
 * on the worker that holds the keys deserialized (or from the node's bytes cache) and
 * never touches the store. The bound on staleness: a key set deleted or replaced
 * through another node just before an outage may be used by this node for at most
 * `staleMs`, and only while the store cannot be reached. Writes, lists and key sets
 * this node has not seen still fail with STORE_UNAVAILABLE + Retry-After.
 */
export class OutageTolerantKeyStore implements KeyStore {
  readonly #inner: KeyStore
  readonly #staleMs: number
  readonly #probeMs: number
  readonly #records: LRUCache<string, Confirmed>
  readonly #observer: KeyStoreObserver | undefined
  readonly #log: OutageToleranceOptions['log']
  readonly #now: () => number
  #health: KeyStoreHealth
  #lastTry = 0

  constructor(inner: KeyStore, options: OutageToleranceOptions) {
    this.#inner = inner
    this.#staleMs = options.staleMs
    this.#probeMs = options.probeIntervalMs ?? 1000
    this.#records = new LRUCache({ max: options.maxRecords ?? 100_000 })
    this.#observer = options.observer
    this.#log = options.log
    this.#now = options.now ?? Date.now
    this.#health = { status: 'ok', since: new Date(this.#now()).toISOString(), staleServes: 0 }
    this.#observer?.health(true)
  }

  get location(): KeyStoreLocation {
    return this.#inner.location
  }

  /** The store's health as this node last saw it. */
  health(): KeyStoreHealth {
    return { ...this.#health }
  }

  async get(tenant: string, id: string): Promise<KeySetRecord | undefined> {
    const key = `${tenant}/${id}`
    const known = this.#records.get(key)
    const usable = known !== undefined && this.#now() - known.at <= this.#staleMs
    // While degraded, most requests skip the store (each try may wait for a connection);
    // one per probe interval asks it, and brings the node back as soon as it answers.
    if (usable && this.#health.status === 'degraded' && this.#now() - this.#lastTry < this.#probeMs) {
      return this.#stale(known)
    }
    try {
      const record = await this.#call('get', () => this.#inner.get(tenant, id))
      if (record) this.#records.set(key, { record, at: this.#now() })
      else this.#records.delete(key)
      return record
    } catch (error) {
      if (usable && isUnavailable(error)) return this.#stale(known)
      throw error
    }
  }

  async put(
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    sha256?: string,
    kernelForm?: KernelFormWrite,
  ): Promise<KeySetPutResult> {
    const result = await this.#call('put', () => this.#inner.put(tenant, id, facts, bytes, sha256, kernelForm))
    this.#records.set(`${tenant}/${id}`, { record: result.record, at: this.#now() })
    return result
  }

  list(tenant: string): Promise<KeySetRecord[]> {
    return this.#call('list', () => this.#inner.list(tenant))
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    // Forgotten first: a delete that fails half-way must not leave the key set servable here.
    this.#records.delete(`${tenant}/${id}`)
    return this.#call('delete', () => this.#inner.delete(tenant, id))
  }

  usage(tenant: string): Promise<number> {
    return this.#call('usage', () => this.#inner.usage(tenant))
  }

  read(ref: Parameters<KeyStore['read']>[0]): Promise<Uint8Array> {
    return this.#call('read', () => this.#inner.read(ref))
  }

  putKernelForm(tenant: string, sha256: string, kernelForm: KernelFormWrite): Promise<boolean> {
    return this.#call('putKernelForm', () => this.#inner.putKernelForm(tenant, sha256, kernelForm))
  }

  readKernelForm(ref: Parameters<KeyStore['read']>[0], form: string): Promise<Uint8Array | undefined> {
    return this.#call('readKernelForm', () => this.#inner.readKernelForm(ref, form))
  }

  flush(): Promise<void> {
    return this.#inner.flush()
  }

  async close(): Promise<void> {
    await this.#inner.close?.()
  }

  #stale(known: Confirmed): KeySetRecord {
    this.#health.staleServes++
    this.#observer?.staleServe()
    return known.record
  }

  async #call<T>(op: string, fn: () => Promise<T>): Promise<T> {
    const started = this.#now()
    this.#lastTry = started
    try {
      const value = await fn()
      this.#observer?.call(op, 'ok', (this.#now() - started) / 1000)
      this.#mark('ok')
      return value
    } catch (error) {
      const unavailable = isUnavailable(error)
      this.#observer?.call(op, unavailable ? 'unavailable' : 'error', (this.#now() - started) / 1000)
      // A lock or statement limit is one busy row, not an unreachable store.
      const reason = (error as HeError).details?.reason
      if (unavailable && reason !== 'lock-timeout' && reason !== 'statement-timeout') {
        this.#mark('degraded', (error as HeError).message)
      }
      throw error
    }
  }

  #mark(status: KeyStoreHealth['status'], reason?: string): void {
    if (this.#health.status === status) return
    const now = new Date(this.#now()).toISOString()
    const down = status === 'degraded'
    if (down) {
      this.#log?.warn(
        { store: this.#inner.location.type, reason, staleMs: this.#staleMs },
        `key store unreachable: serving key sets it confirmed in the last ${this.#staleMs} ms from memory`,
      )
    } else {
      this.#log?.info(
        { store: this.#inner.location.type, downSince: this.#health.since, staleServes: this.#health.staleServes },
        'key store reachable again',
      )
    }
    this.#health = {
      status,
      since: now,
      staleServes: this.#health.staleServes,
      ...(reason === undefined ? {} : { reason }),
    }
    this.#observer?.health(!down)
  }
}

function isUnavailable(error: unknown): error is HeError {
  return error instanceof HeError && error.code === 'STORE_UNAVAILABLE'
}
