import { EVALUATION_KEY_KINDS } from '@sealbox/he-core'
import { z } from 'zod'
import { PostgresTimeoutsSchema } from './postgresTimeouts.ts'

/** What the server learned about an uploaded key set before storing it. */
export const KeySetFactsSchema = z.object({
  /** The secret key's id from the envelopes (32 hex): queries must carry the same one. */
  keySetId: z.string().regex(/^[0-9a-f]{32}$/),
  /** Params fingerprint of the keys. */
  fingerprint: z.string().regex(/^[0-9a-f]{32}$/),
  /** The server's search configId when the keys were made for it. */
  configId: z.string().optional(),
  kinds: z.array(z.enum(EVALUATION_KEY_KINDS)).min(1),
  /** Galois elements present (what rotations the set supports). */
  galoisElements: z.array(z.number().int()).default([]),
  polyModulusDegree: z.number().int().optional(),
  label: z.string().max(200).optional(),
})
export type KeySetFacts = z.infer<typeof KeySetFactsSchema>

/** One stored key set, as listed by its tenant. */
export const KeySetRecordSchema = KeySetFactsSchema.extend({
  tenant: z.string(),
  /** The name chosen by the client in `PUT /api/v1/keysets/:id`. */
  id: z.string(),
  /** Bytes stored (the uploaded envelope or bundle). */
  bytes: z.number().int().nonnegative(),
  /** SHA-256 of the stored bytes: the version of this key set (caches key on it). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type KeySetRecord = z.infer<typeof KeySetRecordSchema>

/** Where a worker finds a key set's bytes (plain data: crosses threads and sockets). */
export const KeyBlobRefSchema = z.object({
  tenant: z.string(),
  id: z.string(),
  sha256: z.string(),
  bytes: z.number().int(),
})
export type KeyBlobRef = z.infer<typeof KeyBlobRefSchema>

/** What `KeyStore.put` did: the stored record, and whether the id was new (201) or replaced (200). */
export interface KeySetPutResult {
  record: KeySetRecord
  /**
   * True when no key set of this id existed: decided under the same lock as the write,
   * so of several concurrent PUTs of a new id exactly one creates it.
   */
  created: boolean
  /** True when the put's kernel form was kept (false: none given, or it did not fit the quota). */
  kernelFormKept: boolean
}

/**
 * A search's kernel form of a key set (`KernelGaloisKeys.toBytes`), kept by the store
 * beside SEAL's bytes so a store-tier miss copies words instead of loading SEAL keys.
 * Derived data: it counts in the tenant's stored bytes, but never refuses an upload.
 */
export interface KernelFormWrite {
  /** `kernelFormName(fingerprint, elements)`. */
  form: string
  /** The kernel form itself (stored sealed with its digest, `sealKernelFormBlob`). */
  bytes: Uint8Array
}

/** Limits a store enforces per tenant on every write. */
export interface KeyStoreLimits {
  quotaBytes: number
  maxKeySets: number
}

/**
 * Durable per-tenant storage of evaluation-key sets. Every method takes the tenant:
 * a tenant can only ever see, use or delete its own key sets.
 */
export interface KeyStore {
  /**
   * Creates or replaces a key set atomically (QUOTA_EXCEEDED / LIMIT_EXCEEDED first).
   * `sha256` of the bytes may be passed when already known (workers compute it).
   */
  put(
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    sha256?: string,
    kernelForm?: KernelFormWrite,
  ): Promise<KeySetPutResult>
  /**
   * Keeps a kernel form beside the stored key set of this tenant and content hash (a
   * key set stored before the store kept kernel forms gains one on its first store-tier
   * miss). False, and nothing written, when no key set of that version remains or the
   * form does not fit the tenant's quota.
   */
  putKernelForm(tenant: string, sha256: string, kernelForm: KernelFormWrite): Promise<boolean>
  get(tenant: string, id: string): Promise<KeySetRecord | undefined>
  list(tenant: string): Promise<KeySetRecord[]>
  /** True when something was deleted. */
  delete(tenant: string, id: string): Promise<boolean>
  /** Stored bytes of the tenant: its uploads and the kernel forms kept beside them. */
  usage(tenant: string): Promise<number>
  /** The bytes of a key set version (what workers read on a cache miss). */
  read(ref: KeyBlobRef): Promise<Uint8Array>
  /** The stored blob of a kernel form of a key set version, as `KeyBlobReader.readKernelForm`. */
  readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined>
  /** Settles every write in progress (shutdown). */
  flush(): Promise<void>
  /** Releases connections (networked stores), after `flush()`. */
  close?(): Promise<void>
  /** How a worker opens the same store for reading (plain data). */
  readonly location: KeyStoreLocation
}

/** A store's address, for workers that open their own reader (plain data: crosses threads and sockets). */
export const KeyStoreLocationSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('file'), dir: z.string() }),
  z.object({ type: z.literal('postgres'), url: z.string(), timeouts: PostgresTimeoutsSchema.optional() }),
])
export type KeyStoreLocation = z.infer<typeof KeyStoreLocationSchema>

/** Seconds a client is told to wait before retrying after STORE_UNAVAILABLE. */
export const STORE_RETRY_AFTER_SECONDS = 2

/** Where a store reports what its callers do not see: a damaged tenant, a failing database (pino's shape). */
export interface StoreLog {
  error(details: object, message: string): void
  warn(details: object, message: string): void
}

/** What a worker needs to read key bytes. */
export interface KeyBlobReader {
  read(ref: KeyBlobRef): Promise<Uint8Array>
  /**
   * The stored blob of a kernel form of this key-set version (`sealKernelFormBlob`,
   * unchecked: the caller opens it), or undefined when the store keeps none.
   */
  readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined>
}
