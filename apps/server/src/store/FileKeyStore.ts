import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { TENANT_ID } from '../config/ServerConfig.ts'
import { assertStoreName } from './assertStoreName.ts'
import { checkKeyStoreQuota } from './checkKeyStoreQuota.ts'
import { FileKeyBlobReader, kernelFormPath } from './FileKeyBlobReader.ts'
import { fileStoreError } from './fileStoreErrors.ts'
import type {
  KernelFormWrite,
  KeyBlobRef,
  KeySetFacts,
  KeySetPutResult,
  KeySetRecord,
  KeyStore,
  KeyStoreLimits,
  KeyStoreLocation,
  StoreLog,
} from './KeyStore.ts'
import { keepKernelForms } from './keepKernelForms.ts'
import { assertKernelFormName, sealKernelFormBlob } from './kernelFormBlob.ts'
import { isDiskFull, SpareSpace } from './SpareSpace.ts'
import {
  copyIndex,
  emptyTenantIndex,
  parseTenantIndex,
  setKernelForm,
  storedBytes,
  type TenantIndex,
  tenantIndexJson,
  uploadBytes,
  usesBlob,
} from './TenantIndex.ts'
import { syncDirectory, writeFileAtomic } from './writeFileAtomic.ts'

const SHA256 = /^[0-9a-f]{64}$/

/** Kept aside for deletions on a full disk: far above a tenant index at MAX_KEYSETS' default (about 50 KB). */
const SPARE_BYTES = 1024 * 1024

/** Options of `FileKeyStore.open`. */
export interface FileKeyStoreOptions {
  /** Where a damaged tenant index and file-system failures are reported. */
  log?: StoreLog
}

/**
 * The embedded, durable key store: one directory per tenant holding content-addressed
 * blobs and an `index.json`. A write puts the blob in place first (atomic write +
 * fsync + rename + directory fsync) and only then swaps the index the same way, so a
 * crash at any point leaves the previous state intact; leftovers are swept at start.
 *
 * A tenant whose `index.json` does not parse is quarantined, not the server: its calls
 * answer TENANT_UNAVAILABLE, nothing of it is swept or rewritten (the file stays as it
 * is for the operator, whom the log tells once), and every other tenant is served.
 *
 * A deletion works on a full disk: the store keeps a spare file (`SpareSpace`) that a
 * deletion gives up when its index cannot be written for lack of space.
 */
export class FileKeyStore implements KeyStore {
  readonly location: KeyStoreLocation
  readonly #root: string
  readonly #limits: KeyStoreLimits
  readonly #reader: FileKeyBlobReader
  readonly #log: StoreLog | undefined
  readonly #indexes = new Map<string, Promise<TenantIndex>>()
  readonly #locks = new Map<string, Promise<unknown>>()
  /** Tenants whose index is damaged, with the file's path. */
  readonly #quarantined = new Map<string, string>()
  readonly #spare: SpareSpace

  private constructor(dir: string, limits: KeyStoreLimits, log: StoreLog | undefined) {
    this.location = { type: 'file', dir }
    this.#root = join(dir, 'keysets')
    // A dot name: never taken for a tenant (TENANT_ID) by the sweep.
    this.#spare = new SpareSpace(join(this.#root, '.spare-for-deletes'), SPARE_BYTES)
    this.#limits = limits
    this.#reader = new FileKeyBlobReader(dir)
    this.#log = log
  }

  /**
   * Opens (creating if needed) the store under `dir` and sweeps crash leftovers. A
   * tenant whose index cannot be read is reported to `log` and skipped, never swept.
   */
  static async open(dir: string, limits: KeyStoreLimits, options: FileKeyStoreOptions = {}): Promise<FileKeyStore> {
    const store = new FileKeyStore(dir, limits, options.log)
    await mkdir(store.#root, { recursive: true })
    await store.#spare.ensure()
    for (const tenant of await readdir(store.#root)) {
      if (!TENANT_ID.test(tenant)) continue
      try {
        await store.#sweep(tenant)
      } catch (error) {
        // Quarantine and wrapped I/O errors were logged already; an I/O error is retried on
        // the tenant's next call.
        if (!(error instanceof HeError)) {
          store.#log?.error(
            { err: error, tenant, path: store.#indexPath(tenant) },
            `key-set index of tenant "${tenant}" could not be read at start; its calls will retry it`,
          )
        }
      }
    }
    return store
  }

  /** Tenants quarantined for a damaged index (their calls answer TENANT_UNAVAILABLE). */
  get quarantinedTenants(): string[] {
    return [...this.#quarantined.keys()]
  }

  async put(
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    knownSha256?: string,
    kernelForm?: KernelFormWrite,
  ): Promise<KeySetPutResult> {
    assertStoreName(tenant, 'tenant')
    assertStoreName(id, 'key-set id')
    if (kernelForm) assertKernelFormName(kernelForm.form)
    const sha256 = knownSha256 ?? createHash('sha256').update(bytes).digest('hex')
    if (!SHA256.test(sha256)) throw new HeError('INTERNAL', 'bad key-set digest')
    const blob = kernelForm ? sealKernelFormBlob(kernelForm.bytes) : undefined
    return this.#locked(tenant, async () => {
      const index = await this.#index(tenant)
      const previous = index.records.get(id)
      // The quota is checked on uploads alone: kernel forms never refuse one (`keepKernelForms`).
      const usage = {
        usedBytes: uploadBytes(index) - (previous?.bytes ?? 0),
        keySets: index.records.size,
        replaces: previous !== undefined,
      }
      checkKeyStoreQuota(this.#limits, tenant, usage, bytes.length)
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
      const next = copyIndex(index)
      next.records.set(id, record)
      const dropped: Array<[string, string]> = []
      if (previous && previous.sha256 !== sha256 && !usesBlob(next, previous.sha256)) {
        for (const form of next.kernelForms.get(previous.sha256)?.keys() ?? []) dropped.push([previous.sha256, form])
        next.kernelForms.delete(previous.sha256)
      }
      const stored = [...next.kernelForms].flatMap(([sha, forms]) =>
        [...forms]
          .filter(([form]) => sha !== sha256 || form !== kernelForm?.form)
          .map(([form, size]) => ({ key: [sha, form] as [string, string], bytes: size })),
      )
      const kept = keepKernelForms(this.#limits.quotaBytes - usage.usedBytes - bytes.length, blob?.byteLength, stored)
      for (const [sha, form] of kept.drop) {
        next.kernelForms.get(sha)?.delete(form)
        dropped.push([sha, form])
      }
      if (kernelForm && blob && kept.keepFresh) setKernelForm(next, sha256, kernelForm.form, blob.byteLength)
      try {
        await mkdir(blobs, { recursive: true })
        // Both files before the index that names them; their fsyncs overlap.
        await Promise.all([
          writeFileAtomic(join(blobs, `${sha256}.sbx`), bytes),
          kernelForm && blob && kept.keepFresh
            ? writeFileAtomic(kernelFormPath(this.#root, tenant, sha256, kernelForm.form), blob)
            : undefined,
        ])
        await this.#writeIndex(tenant, next)
        if (previous && previous.sha256 !== sha256) await this.#dropBlobIfUnused(tenant, next, previous.sha256)
        await this.#dropKernelForms(tenant, dropped)
      } catch (error) {
        throw this.#failed(error, `store key set "${id}"`)
      }
      // Decided under the tenant's lock: of concurrent PUTs of a new id exactly one creates it.
      return { record, created: previous === undefined, kernelFormKept: kernelForm !== undefined && kept.keepFresh }
    })
  }

  async putKernelForm(tenant: string, sha256: string, kernelForm: KernelFormWrite): Promise<boolean> {
    assertStoreName(tenant, 'tenant')
    if (!SHA256.test(sha256)) throw new HeError('INTERNAL', 'bad key-set digest')
    assertKernelFormName(kernelForm.form)
    const blob = sealKernelFormBlob(kernelForm.bytes)
    return this.#locked(tenant, async () => {
      const index = await this.#index(tenant)
      if (!usesBlob(index, sha256)) return false
      const replaced = index.kernelForms.get(sha256)?.get(kernelForm.form) ?? 0
      if (storedBytes(index) - replaced + blob.byteLength > this.#limits.quotaBytes) return false
      const next = copyIndex(index)
      setKernelForm(next, sha256, kernelForm.form, blob.byteLength)
      try {
        await writeFileAtomic(kernelFormPath(this.#root, tenant, sha256, kernelForm.form), blob)
        await this.#writeIndex(tenant, next)
      } catch (error) {
        throw this.#failed(error, `store a kernel form of tenant "${tenant}"`)
      }
      return true
    })
  }

  async get(tenant: string, id: string): Promise<KeySetRecord | undefined> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return undefined
    return (await this.#index(tenant)).records.get(id)
  }

  async list(tenant: string): Promise<KeySetRecord[]> {
    assertStoreName(tenant, 'tenant')
    return [...(await this.#index(tenant)).records.values()].sort((a, b) => a.id.localeCompare(b.id))
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return false
    return this.#locked(tenant, async () => {
      const index = await this.#index(tenant)
      const previous = index.records.get(id)
      if (!previous) return false
      const next = copyIndex(index)
      next.records.delete(id)
      const dropped: Array<[string, string]> = []
      if (!usesBlob(next, previous.sha256)) {
        for (const form of next.kernelForms.get(previous.sha256)?.keys() ?? []) dropped.push([previous.sha256, form])
        next.kernelForms.delete(previous.sha256)
      }
      let usedSpare = false
      try {
        await this.#writeIndex(tenant, next)
      } catch (error) {
        // A full disk must not keep a tenant from freeing space: give up the spare and retry once.
        if (!isDiskFull(error) || !(await this.#spare.release())) throw this.#failed(error, `delete key set "${id}"`)
        usedSpare = true
        try {
          await this.#writeIndex(tenant, next)
        } catch (retry) {
          throw this.#failed(retry, `delete key set "${id}"`)
        }
      }
      await this.#dropBlobIfUnused(tenant, next, previous.sha256)
      await this.#dropKernelForms(tenant, dropped)
      if (usedSpare) await this.#spare.ensure()
      return true
    })
  }

  async usage(tenant: string): Promise<number> {
    assertStoreName(tenant, 'tenant')
    return storedBytes(await this.#index(tenant))
  }

  read(ref: KeyBlobRef): Promise<Uint8Array> {
    return this.#reader.read(ref)
  }

  readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined> {
    return this.#reader.readKernelForm(ref, form)
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
    if (this.#quarantined.has(tenant)) return Promise.reject(tenantUnavailable(tenant))
    let index = this.#indexes.get(tenant)
    if (!index) {
      index = this.#loadIndex(tenant)
      index.catch(() => this.#indexes.delete(tenant))
      this.#indexes.set(tenant, index)
    }
    return index
  }

  #indexPath(tenant: string): string {
    return join(this.#root, tenant, 'index.json')
  }

  async #loadIndex(tenant: string): Promise<TenantIndex> {
    const path = this.#indexPath(tenant)
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyTenantIndex()
      throw this.#failed(error, `read the key-set index of tenant "${tenant}"`)
    }
    const parsed = parseTenantIndex(text)
    if (!parsed.success) {
      // Never silently drop stored keys, nor write over them: a bad index stops this
      // tenant, not the server, and stays on disk for the operator.
      this.#quarantined.set(tenant, path)
      this.#log?.error(
        { err: parsed.error, tenant, path },
        `key-set index of tenant "${tenant}" is damaged (${path}); this tenant is quarantined until the file is repaired or restored from a backup and the server restarted`,
      )
      throw tenantUnavailable(tenant)
    }
    return parsed.index
  }

  /** The caller's HeError for a file-system failure; the failure itself goes to the log. */
  #failed(error: unknown, action: string): HeError {
    const failure = fileStoreError(error, action)
    if (failure !== error) this.#log?.error({ err: error, action }, `key store: ${failure.message}`)
    return failure
  }

  async #writeIndex(tenant: string, index: TenantIndex): Promise<void> {
    const dir = join(this.#root, tenant)
    await mkdir(dir, { recursive: true })
    await writeFileAtomic(join(dir, 'index.json'), new TextEncoder().encode(tenantIndexJson(index)))
    this.#indexes.set(tenant, Promise.resolve(index))
  }

  async #dropBlobIfUnused(tenant: string, index: TenantIndex, sha256: string): Promise<void> {
    if (usesBlob(index, sha256)) return
    const blobs = join(this.#root, tenant, 'blobs')
    await unlink(join(blobs, `${sha256}.sbx`)).catch(() => undefined)
    await syncDirectory(blobs).catch(() => undefined)
  }

  /** Removes kernel-form files the index no longer names (a crash before this is swept at start). */
  async #dropKernelForms(tenant: string, forms: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (forms.length === 0) return
    for (const [sha, form] of forms) await unlink(kernelFormPath(this.#root, tenant, sha, form)).catch(() => undefined)
    await syncDirectory(join(this.#root, tenant, 'blobs')).catch(() => undefined)
  }

  /** Removes temporary files and blobs no index entry points to (a crash between the two writes). */
  async #sweep(tenant: string): Promise<void> {
    const dir = join(this.#root, tenant)
    const index = await this.#index(tenant)
    const kept = new Set([...index.records.values()].map((record) => `${record.sha256}.sbx`))
    for (const [sha, forms] of index.kernelForms) for (const form of forms.keys()) kept.add(`${sha}.${form}.sbkf`)
    for (const name of await readdir(dir)) if (name.endsWith('.tmp')) await unlink(join(dir, name)).catch(() => {})
    const blobs = join(dir, 'blobs')
    const names = await readdir(blobs).catch(() => [] as string[])
    for (const name of names) if (!kept.has(name)) await unlink(join(blobs, name)).catch(() => undefined)
  }
}

function tenantUnavailable(tenant: string): HeError {
  return new HeError(
    'TENANT_UNAVAILABLE',
    `the key-set index of tenant "${tenant}" is damaged, so its key sets cannot be listed, used or changed; contact the operator (the data is kept for repair)`,
  )
}
