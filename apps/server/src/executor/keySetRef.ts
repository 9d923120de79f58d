import { HeError } from '@sealbox/he-core'
import { z } from 'zod'

/**
 * One version of a tenant's stored key set, by content: a replaced key set is a new
 * ref (its old entries age out of every cache), and two tenants never share one. What
 * the node's bytes cache and the scheduler's affinity are keyed on.
 */
export const KeySetRefSchema = z.object({
  tenant: z.string().min(1),
  sha256: z.string().min(1),
  /**
   * 'search': the key-switching kernel's form of a search's part of the key set — its
   * Galois keys' kernel words only (`KernelGaloisKeys`), never SEAL's objects. Absent:
   * SEAL's keys (a whole set for evaluate programs, a part for a search in SEAL). A
   * cache keeps them apart (`searchKeySetOf`).
   */
  use: z.literal('search').optional(),
})
export type KeySetRef = z.infer<typeof KeySetRefSchema>

/** A key set deserialized under one params fingerprint: one entry of a worker's key cache. */
export const LoadedKeySetRefSchema = KeySetRefSchema.extend({ fingerprint: z.string().min(1) })
export type LoadedKeySetRef = z.infer<typeof LoadedKeySetRefSchema>

// Neither a tenant id, a hex digest nor a hex fingerprint contains '/', so the parts
// cannot run into each other.
const SEPARATOR = '/'

/**
 * The string a cache is keyed on: `tenant/sha256` for a key set, `tenant/sha256/fingerprint`
 * for a loaded one, each followed by `/search` for the search's form. Only
 * `loadedKeySetRefOf` turns a key back into a ref.
 */
export function keySetCacheKey(ref: KeySetRef | LoadedKeySetRef): string {
  const parts = [ref.tenant, ref.sha256]
  if ('fingerprint' in ref) parts.push(ref.fingerprint)
  if (ref.use) parts.push(ref.use)
  return parts.join(SEPARATOR)
}

/** The loaded key set a worker cache key names (the inverse of `keySetCacheKey`). */
export function loadedKeySetRefOf(key: string): LoadedKeySetRef {
  const [tenant, sha256, fingerprint, use, ...rest] = key.split(SEPARATOR)
  const parsed = LoadedKeySetRefSchema.safeParse({ tenant, sha256, fingerprint, use })
  if (!parsed.success || rest.length > 0) {
    throw new HeError('INTERNAL', `"${key}" is not a worker key-cache key (tenant/sha256/fingerprint[/search])`)
  }
  return parsed.data
}

/**
 * The part of a key set a job loads when it needs only some Galois elements (a search):
 * its own identity in every cache, beside the whole set's. Neither '+' nor '.' appears in
 * a hex digest, so a part never collides with a whole set.
 */
export function keySetPartOf(ref: KeySetRef, galoisElements: readonly number[]): KeySetRef {
  return { tenant: ref.tenant, sha256: `${ref.sha256}+${[...galoisElements].sort((a, b) => a - b).join('.')}` }
}

/** The key set of a ref, without its fingerprint (placement is per key-set version and use). */
export function keySetOf(ref: KeySetRef | LoadedKeySetRef): KeySetRef {
  return { tenant: ref.tenant, sha256: ref.sha256, ...(ref.use ? { use: ref.use } : {}) }
}

/**
 * How a search holds a user's Galois keys: `kernel` — the key-switching kernel's u32 words
 * of the search's elements (`KernelGaloisKeys`), no SEAL object; `seal` — SEAL's keys of
 * those elements (`EvaluationKeys.load` with `onlyGaloisElements`), where the kernel does
 * not apply. Reported by the warm worker (`SearchSummary.keyForm`).
 */
export const SearchKeyFormSchema = z.enum(['kernel', 'seal'])
export type SearchKeyForm = z.infer<typeof SearchKeyFormSchema>

/**
 * The key set a search holds, as every cache names it: the part of its Galois elements
 * (`keySetPartOf`), and `use: 'search'` for the kernel form — so the kernel form, SEAL's
 * part and SEAL's whole set (evaluate programs, `keySetOf`) never share an entry.
 */
export function searchKeySetOf(ref: KeySetRef, galoisElements: readonly number[], form: SearchKeyForm): KeySetRef {
  const part = keySetPartOf(keySetOf(ref), galoisElements)
  return form === 'kernel' ? { ...part, use: 'search' } : part
}
