import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { z } from 'zod'
import { TENANT_ID } from '../config/ServerConfig.ts'
import {
  type KeyBlobReader,
  type KeyBlobRef,
  type KeySetFacts,
  type KeySetRecord,
  KeySetRecordSchema,
  type KeyStore,
  type KeyStoreLimits,
  type KeyStoreLocation,
} from './KeyStore.ts'
import { syncDirectory, writeFileAtomic } from './writeFileAtomic.ts'

const IndexSchema = z.object({ version: z.literal(1), records: z.record(z.string(), KeySetRecordSchema) })
type TenantIndex = Map<string, KeySetRecord>

const SHA256 = /^[0-9a-f]{64}$/

/** Throws unless `name` is safe as a path segment (tenant ids and key-set names). */
export function assertStoreName(name: string, what: string): void {
  if (!TENANT_ID.test(name)) {
    throw new HeError(
      'INVALID_INPUT',
      `${what} "${name.slice(0, 80)}" is not valid: use 1–64 letters, digits, _ . -, starting with a letter or digit`,
    )
  }
}

/**
 * Reads key-set bytes straight from a FileKeyStore directory. Workers open one of
 * these, so key bytes go from disk to the thread that uses them, not through the
 * main event loop.
 */
export class FileKeyBlobReader implements KeyBlobReader {
  readonly #root: string

  constructor(dir: string) {
    this.#root = join(dir, 'keysets')
  }

  async read(ref: KeyBlobRef): Promise<Uint8Array> {
    assertStoreName(ref.tenant, 'tenant')
    if (!SHA256.test(ref.sha256)) throw new HeError('INVALID_INPUT', 'bad key-set version')
    try {
      const buffer = await readFile(join(this.#root, ref.tenant, 'blobs', `${ref.sha256}.sbx`))
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new HeError('NOT_FOUND', `key set "${ref.id}" was deleted or replaced while this request waited`)
      }
      throw error
    }
  }
}

/**
 * The embedded, durable key store: one directory per tenant holding content-addressed
 * blobs and an `index.json`. A write puts the blob in place first (atomic write +
 * fsync + rename + directory fsync) and only then swaps the index the same way, so a
 * crash at any point leaves the previous state intact; leftovers are swept at start.
 */
export class FileKeyStore implements KeyStore {
  readonly location: KeyStoreLocation
  readonly #root: string
  readonly #limits: KeyStoreLimits
  readonly #reader: FileKeyBlobReader
  readonly #indexes = new Map<string, Promise<TenantIndex>>()
  readonly #locks = new Map<string, Promise<unknown>>()

  private constructor(dir: string, limits: KeyStoreLimits) {
    this.location = { type: 'file', dir }
    this.#root = join(dir, 'keysets')
    this.#limits = limits
    this.#reader = new FileKeyBlobReader(dir)
  }

  /** Opens (creating if needed) the store under `dir` and sweeps crash leftovers. */
  static async open(dir: string, limits: KeyStoreLimits): Promise<FileKeyStore> {
    const store = new FileKeyStore(dir, limits)
    await mkdir(store.#root, { recursive: true })
    for (const tenant of await readdir(store.#root)) {
      if (TENANT_ID.test(tenant)) await store.#sweep(tenant)
    }
    return store
  }

  async put(
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    knownSha256?: string,
  ): Promise<KeySetRecord> {
    assertStoreName(tenant, 'tenant')
    assertStoreName(id, 'key-set id')
    const sha256 = knownSha256 ?? createHash('sha256').update(bytes).digest('hex')
    if (!SHA256.test(sha256)) throw new HeError('INTERNAL', 'bad key-set digest')
    return this.#locked(tenant, async () => {
      const index = await this.#index(tenant)
      const previous = index.get(id)
      const used = sumBytes(index) - (previous?.bytes ?? 0)
      if (used + bytes.length > this.#limits.quotaBytes) {
        throw new HeError(
          'QUOTA_EXCEEDED',
          `storing ${bytes.length} bytes would bring tenant "${tenant}" to ${used + bytes.length} bytes; the quota is ${this.#limits.quotaBytes}`,
          { details: { quotaBytes: this.#limits.quotaBytes, usedBytes: used, requestBytes: bytes.length } },
        )
      }
      if (!previous && index.size >= this.#limits.maxKeySets) {
        throw new HeError('LIMIT_EXCEEDED', `tenant "${tenant}" already has ${index.size} key sets (the limit)`, {
          details: { limit: this.#limits.maxKeySets },
        })
      }
      const now = new Date().toISOString()
      const record: KeySetRecord = {
        ...facts,
        tenant,
        id,
        bytes: bytes.length,
        sha256,
        createdAt: previous?.createdAt ?? now,
        updatedAt: now,
      }
      const blobs = join(this.#root, tenant, 'blobs')
      await mkdir(blobs, { recursive: true })
      await writeFileAtomic(join(blobs, `${sha256}.sbx`), bytes)
      const next = new Map(index)
      next.set(id, record)
      await this.#writeIndex(tenant, next)
      if (previous && previous.sha256 !== sha256) await this.#dropBlobIfUnused(tenant, next, previous.sha256)
      return record
    })
  }

  async get(tenant: string, id: string): Promise<KeySetRecord | undefined> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return undefined
    return (await this.#index(tenant)).get(id)
  }

  async list(tenant: string): Promise<KeySetRecord[]> {
    assertStoreName(tenant, 'tenant')
    return [...(await this.#index(tenant)).values()].sort((a, b) => a.id.localeCompare(b.id))
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return false
    return this.#locked(tenant, async () => {
      const index = await this.#index(tenant)
      const previous = index.get(id)
      if (!previous) return false
      const next = new Map(index)
      next.delete(id)
      await this.#writeIndex(tenant, next)
      await this.#dropBlobIfUnused(tenant, next, previous.sha256)
      return true
    })
  }

  async usage(tenant: string): Promise<number> {
    assertStoreName(tenant, 'tenant')
    return sumBytes(await this.#index(tenant))
  }

  read(ref: KeyBlobRef): Promise<Uint8Array> {
    return this.#reader.read(ref)
  }

  async flush(): Promise<void> {
    // Every write is durable when its promise settles; wait for those in flight.
    await Promise.allSettled([...this.#locks.values()])
  }

  /** Runs `fn` after every earlier write of `tenant` (one writer per tenant index). */
  #locked<T>(tenant: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(tenant) ?? Promise.resolve()
    const run = previous.then(fn, fn)
    const settled = run.then(
      () => undefined,
      () => undefined,
    )
    this.#locks.set(tenant, settled)
    void settled.then(() => {
      if (this.#locks.get(tenant) === settled) this.#locks.delete(tenant)
    })
    return run
  }

  #index(tenant: string): Promise<TenantIndex> {
    let index = this.#indexes.get(tenant)
    if (!index) {
      index = this.#loadIndex(tenant)
      index.catch(() => this.#indexes.delete(tenant))
      this.#indexes.set(tenant, index)
    }
    return index
  }

  async #loadIndex(tenant: string): Promise<TenantIndex> {
    let text: string
    try {
      text = await readFile(join(this.#root, tenant, 'index.json'), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map()
      throw error
    }
    const parsed = IndexSchema.safeParse(JSON.parse(text))
    if (!parsed.success) {
      // Never silently drop stored keys: a bad index stops this tenant, not the server.
      throw new HeError('INTERNAL', `key-set index of tenant "${tenant}" is unreadable`, { cause: parsed.error })
    }
    return new Map(Object.entries(parsed.data.records))
  }

  async #writeIndex(tenant: string, index: TenantIndex): Promise<void> {
    const dir = join(this.#root, tenant)
    await mkdir(dir, { recursive: true })
    const json = JSON.stringify({ version: 1, records: Object.fromEntries(index) }, null, 1)
    await writeFileAtomic(join(dir, 'index.json'), new TextEncoder().encode(json))
    this.#indexes.set(tenant, Promise.resolve(index))
  }

  async #dropBlobIfUnused(tenant: string, index: TenantIndex, sha256: string): Promise<void> {
    for (const record of index.values()) if (record.sha256 === sha256) return
    const blobs = join(this.#root, tenant, 'blobs')
    await unlink(join(blobs, `${sha256}.sbx`)).catch(() => undefined)
    await syncDirectory(blobs).catch(() => undefined)
  }

  /** Removes temporary files and blobs no index entry points to (a crash between the two writes). */
  async #sweep(tenant: string): Promise<void> {
    const dir = join(this.#root, tenant)
    const index = await this.#index(tenant)
    const used = new Set([...index.values()].map((record) => record.sha256))
    for (const name of await readdir(dir)) if (name.endsWith('.tmp')) await unlink(join(dir, name)).catch(() => {})
    const blobs = join(dir, 'blobs')
    const names = await readdir(blobs).catch(() => [] as string[])
    for (const name of names) {
      const sha = name.replace(/\.sbx$/, '')
      if (name.endsWith('.tmp') || !used.has(sha)) await unlink(join(blobs, name)).catch(() => undefined)
    }
  }
}

function sumBytes(index: TenantIndex): number {
  let total = 0
  for (const record of index.values()) total += record.bytes
  return total
}
