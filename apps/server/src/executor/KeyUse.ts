import { z } from 'zod'
import { type KeySetRef, keySetPartOf } from './keySetRef.ts'

/**
 * The keys of a stored key set a program uses (he-core's `programKeyUse`): the only ones
 * an evaluate job loads, caches and is priced for. A `rotateRows(1)` against a key set
 * of 700 Galois elements loads one element, not 262 MiB of keys.
 */
export const KeyUseSchema = z.object({
  /** Galois elements to load, ascending (may be empty). */
  galoisElements: z.array(z.number().int().positive()),
  /** Whether to load the relinearization key. */
  relinKeys: z.boolean(),
})
export type KeyUse = z.infer<typeof KeyUseSchema>

/**
 * The identity of the part of `ref` that `use` loads, in every cache and in placement:
 * a search's part (`keySetPartOf`) when it needs no relinearization key, so a program
 * and a search using the same elements share one entry; `+relin` marks the relinearization key.
 */
export function keyUsePartOf(ref: KeySetRef, use: KeyUse): KeySetRef {
  const part = keySetPartOf(ref, use.galoisElements)
  return use.relinKeys ? { ...part, sha256: `${part.sha256}+relin` } : part
}
