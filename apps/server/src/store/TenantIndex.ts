import { z } from 'zod'
import { type KeySetRecord, KeySetRecordSchema } from './KeyStore.ts'
import { KERNEL_FORM_NAME } from './kernelFormBlob.ts'

/*
 * A FileKeyStore tenant's `index.json`: its key sets by id and the kernel forms kept
 * beside their blobs, read and written whole (the store swaps it atomically).
 */

const SHA256 = /^[0-9a-f]{64}$/

const IndexSchema = z.object({
  version: z.literal(1),
  records: z.record(z.string(), KeySetRecordSchema),
  /**
   * Kernel forms kept beside key sets: stored bytes by form name, by key-set content
   * hash. Absent in an index written before the store kept them (still version 1: an
   * older server reads the records and ignores this).
   */
  kernelForms: z
    .record(z.string().regex(SHA256), z.record(z.string().regex(KERNEL_FORM_NAME), z.number().int().min(0)))
    .optional(),
})

/** A tenant's index: its key sets by id, and the kernel forms kept beside their blobs. */
export interface TenantIndex {
  records: Map<string, KeySetRecord>
  /** Stored bytes of each kernel form, by form name, by key-set content hash. */
  kernelForms: Map<string, Map<string, number>>
}

/** A copy a write changes while readers keep the current index. */
export function copyIndex(index: TenantIndex): TenantIndex {
  return {
    records: new Map(index.records),
    kernelForms: new Map([...index.kernelForms].map(([sha, forms]) => [sha, new Map(forms)])),
  }
}

/** The index of a tenant with nothing stored. */
export function emptyTenantIndex(): TenantIndex {
  return { records: new Map(), kernelForms: new Map() }
}

/** An index file's text, parsed and checked; the failure as it was when it does not check. */
export function parseTenantIndex(
  text: string,
): { success: true; index: TenantIndex } | { success: false; error: unknown } {
  let parsed: ReturnType<typeof IndexSchema.safeParse>
  try {
    parsed = IndexSchema.safeParse(JSON.parse(text))
  } catch (error) {
    return { success: false, error }
  }
  if (!parsed.success) return { success: false, error: parsed.error }
  const kernelForms = Object.entries(parsed.data.kernelForms ?? {}).map(
    ([sha, forms]) => [sha, new Map(Object.entries(forms))] as const,
  )
  return {
    success: true,
    index: { records: new Map(Object.entries(parsed.data.records)), kernelForms: new Map(kernelForms) },
  }
}

/** The text of an index file (version 1: an older server reads its records and ignores `kernelForms`). */
export function tenantIndexJson(index: TenantIndex): string {
  const kernelForms = Object.fromEntries(
    [...index.kernelForms]
      .filter(([, forms]) => forms.size > 0)
      .map(([sha, forms]) => [sha, Object.fromEntries(forms)]),
  )
  return JSON.stringify({ version: 1, records: Object.fromEntries(index.records), kernelForms }, null, 1)
}

/** Bytes of the tenant's uploads (what the quota refuses an upload on). */
export function uploadBytes(index: TenantIndex): number {
  let total = 0
  for (const record of index.records.values()) total += record.bytes
  return total
}

/** Bytes the tenant stores: its uploads and the kernel forms kept beside them. */
export function storedBytes(index: TenantIndex): number {
  let total = uploadBytes(index)
  for (const forms of index.kernelForms.values()) for (const bytes of forms.values()) total += bytes
  return total
}

export function usesBlob(index: TenantIndex, sha256: string): boolean {
  for (const record of index.records.values()) if (record.sha256 === sha256) return true
  return false
}

export function setKernelForm(index: TenantIndex, sha256: string, form: string, bytes: number): void {
  const forms = index.kernelForms.get(sha256) ?? new Map<string, number>()
  forms.set(form, bytes)
  index.kernelForms.set(sha256, forms)
}
