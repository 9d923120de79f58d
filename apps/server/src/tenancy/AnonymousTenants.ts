import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { z } from 'zod'
import { fileStoreError } from '../store/fileStoreErrors.ts'
import type { KeyStore } from '../store/KeyStore.ts'
import { writeFileAtomic } from '../store/writeFileAtomic.ts'
import type { IssuedToken } from './TokenAuthority.ts'

const REGISTRY_FILE = 'anonymous-tenants.json'

/**
 * An anonymous tenant that stores nothing gives its place back this long after it was
 * issued: a sandbox tab that connected and left must not hold a slot forever, and ten
 * minutes is long enough to make keys and upload them.
 */
export const EMPTY_TENANT_GRACE_MS = 10 * 60_000

const RegistrySchema = z.object({ tenants: z.record(z.string(), z.number()) })

/** Options of `AnonymousTenants.open`. */
export interface AnonymousTenantsOptions {
  /** `MAX_ANONYMOUS_TENANTS`. */
  maxTenants: number
  /** `ANONYMOUS_STORAGE_BYTES`: every anonymous tenant's stored bytes together. */
  storageBytes: number
  store: KeyStore
  /** The registry is kept in this directory, beside the local-token secret. */
  dataDir: string
  /** Wall clock (ms since the epoch); tests pass their own. */
  now?: () => number
}

interface Reservation {
  tenant: string
  bytes: number
  /** A reservation whose request never reported back stops counting after this (wall-clock ms). */
  until: number
}

/**
 * The anonymous tenants of a local-mode server and the two limits on them: how many
 * may exist (`maxTenants`: each has its own quota and its own fair-queue slot, so
 * unlimited tenants would multiply both) and how many bytes they store together
 * (`storageBytes`). The list survives restarts (a JSON file in the data directory),
 * because anonymous tokens and their key sets do.
 *
 * Stored bytes are read from the key store once per tenant and re-read after each of
 * its writes and deletes; uploads in flight hold a reservation, so concurrent uploads
 * cannot together overshoot the total.
 */
export class AnonymousTenants {
  readonly #options: Required<AnonymousTenantsOptions>
  /** Tenant → when it was issued (or first seen), wall-clock ms. */
  readonly #tenants: Map<string, number>
  /** Tenant → bytes stored, once read. */
  readonly #usage = new Map<string, number>()
  readonly #reservations = new Set<Reservation>()
  #usageLoaded: Promise<void> | undefined
  #writes: Promise<void> = Promise.resolve()

  private constructor(options: Required<AnonymousTenantsOptions>, tenants: Map<string, number>) {
    this.#options = options
    this.#tenants = tenants
  }

  /** Loads the registry from `dataDir` (an unreadable or missing file starts empty). */
  static async open(options: AnonymousTenantsOptions): Promise<AnonymousTenants> {
    const full = { now: () => Date.now(), ...options }
    let tenants = new Map<string, number>()
    try {
      const parsed = RegistrySchema.parse(JSON.parse(await readFile(join(options.dataDir, REGISTRY_FILE), 'utf8')))
      tenants = new Map(Object.entries(parsed.tenants))
    } catch {
      tenants = new Map()
    }
    return new AnonymousTenants(full, tenants)
  }

  /** Anonymous tenants known now. */
  get size(): number {
    return this.#tenants.size
  }

  /**
   * Registers the tenant `issue()` makes, or refuses with OVERLOADED (503 + Retry-After)
   * when `maxTenants` exist even after empty tenants past their grace period were let go,
   * or STORE_UNAVAILABLE (503 + Retry-After) when the registry cannot be written (the
   * tenant is then not registered).
   */
  async admit(issue: () => IssuedToken): Promise<IssuedToken> {
    if (this.#tenants.size >= this.#options.maxTenants) await this.#reclaimEmpty()
    // No await between this check and the insertion: concurrent admits cannot both pass.
    if (this.#tenants.size >= this.#options.maxTenants) {
      const retryAfterSeconds = this.#secondsUntilAPlaceMayFree()
      throw new HeError(
        'OVERLOADED',
        `this local server already has ${this.#tenants.size} anonymous tenants, its limit (MAX_ANONYMOUS_TENANTS = ${this.#options.maxTenants}); an empty one frees its place ${EMPTY_TENANT_GRACE_MS / 60_000} minutes after it was made — retry later, or ask the operator for a token`,
        { details: { maxAnonymousTenants: this.#options.maxTenants, retryAfterSeconds } },
      )
    }
    const issued = issue()
    this.#tenants.set(issued.tenant, this.#options.now())
    this.#usage.set(issued.tenant, 0)
    try {
      await this.#persist()
    } catch (error) {
      // Not registered unless written (a full disk, say): the token is never handed out, so
      // the place is given back at once and the client told to retry (503, not 500).
      this.#tenants.delete(issued.tenant)
      this.#usage.delete(issued.tenant)
      throw fileStoreError(error, 'register the new session')
    }
    return issued
  }

  /**
   * Reserves `bytes` for an upload of `tenant` that replaces `replacedBytes` (0 for a new
   * key set); QUOTA_EXCEEDED when all anonymous tenants would then store more than
   * `storageBytes`. Call the returned function once the upload has ended (after
   * `refresh(tenant)` when it stored something). A tenant not yet known (issued before a
   * restart that lost the registry) is registered.
   */
  async reserve(tenant: string, bytes: number, replacedBytes: number, ttlMs: number): Promise<() => void> {
    await this.#loadUsage()
    if (!this.#usage.has(tenant)) {
      const used = await this.#options.store.usage(tenant)
      if (!this.#tenants.has(tenant)) {
        this.#tenants.set(tenant, this.#options.now())
        void this.#persist().catch(() => undefined)
      }
      this.#usage.set(tenant, used)
    }
    const now = this.#options.now()
    const stored = this.#storedBytes()
    const reserved = this.#reservedBytes(now)
    const after = stored + reserved - replacedBytes + bytes
    if (after > this.#options.storageBytes) {
      throw new HeError(
        'QUOTA_EXCEEDED',
        `storing ${bytes} bytes would bring all anonymous tenants of this local server to ${after} bytes; together they may store ${this.#options.storageBytes} (ANONYMOUS_STORAGE_BYTES) — delete key sets, or ask the operator for a token`,
        { details: { anonymousStorageBytes: this.#options.storageBytes, usedBytes: stored + reserved } },
      )
    }
    const reservation: Reservation = { tenant, bytes, until: now + ttlMs }
    this.#reservations.add(reservation)
    return () => {
      this.#reservations.delete(reservation)
    }
  }

  /** Re-reads a known tenant's stored bytes (after it wrote or deleted a key set). */
  async refresh(tenant: string): Promise<void> {
    if (!this.#tenants.has(tenant)) return
    this.#usage.set(tenant, await this.#options.store.usage(tenant))
  }

  /** Bytes stored by every known anonymous tenant (as last read). */
  storedBytes(): number {
    return this.#storedBytes()
  }

  /** Settles registry writes in progress (shutdown). */
  async flush(): Promise<void> {
    await this.#writes
  }

  #storedBytes(): number {
    let total = 0
    for (const bytes of this.#usage.values()) total += bytes
    return total
  }

  #reservedBytes(now: number): number {
    let total = 0
    for (const reservation of this.#reservations) {
      if (reservation.until < now) this.#reservations.delete(reservation)
      else total += reservation.bytes
    }
    return total
  }

  #loadUsage(): Promise<void> {
    if (!this.#usageLoaded) {
      const loading = (async () => {
        for (const tenant of [...this.#tenants.keys()]) {
          if (!this.#usage.has(tenant)) this.#usage.set(tenant, await this.#options.store.usage(tenant))
        }
      })()
      // A failed read (store down) is retried by the next caller rather than remembered.
      loading.catch(() => {
        if (this.#usageLoaded === loading) this.#usageLoaded = undefined
      })
      this.#usageLoaded = loading
    }
    return this.#usageLoaded
  }

  async #reclaimEmpty(): Promise<void> {
    await this.#loadUsage()
    const now = this.#options.now()
    const busy = new Set([...this.#reservations].map((reservation) => reservation.tenant))
    let changed = false
    for (const [tenant, issuedAt] of this.#tenants) {
      if (issuedAt + EMPTY_TENANT_GRACE_MS > now || busy.has(tenant)) continue
      if ((this.#usage.get(tenant) ?? 0) === 0) {
        this.#tenants.delete(tenant)
        this.#usage.delete(tenant)
        changed = true
      }
    }
    if (changed) await this.#persist()
  }

  #secondsUntilAPlaceMayFree(): number {
    const now = this.#options.now()
    let soonest = Number.POSITIVE_INFINITY
    for (const [tenant, issuedAt] of this.#tenants) {
      const freeAt = issuedAt + EMPTY_TENANT_GRACE_MS
      if (freeAt > now && (this.#usage.get(tenant) ?? 0) === 0) soonest = Math.min(soonest, freeAt)
    }
    const ms = Number.isFinite(soonest) ? soonest - now : EMPTY_TENANT_GRACE_MS
    return Math.max(1, Math.ceil(ms / 1000))
  }

  /** Writes the registry (each write holds the state at the time it runs; writes never overlap). */
  #persist(): Promise<void> {
    const write = this.#writes.then(() =>
      writeFileAtomic(
        join(this.#options.dataDir, REGISTRY_FILE),
        new TextEncoder().encode(JSON.stringify({ tenants: Object.fromEntries(this.#tenants) })),
        { mode: 0o600 },
      ),
    )
    this.#writes = write.catch(() => undefined)
    return write
  }
}
