import { KEY_LOAD_UNITS_PER_MIB } from './keyUploadCost.ts'

/*
 * What a search or a program pays for its stored keys when the worker it runs on does
 * not hold them deserialized, in the units of the program cost model. The keys' loaded
 * size comes from the stored record (its kinds and Galois elements under the job's
 * parameters), never from the compressed bytes, which a seeded zstd upload makes about
 * a quarter of it.
 *
 * - From the durable store: the bytes are read and hashed, inflated, every residue
 *   checked and loaded into SEAL (the upload check's work, `KEY_LOAD_UNITS_PER_MIB`), then
 *   re-saved in full form for the node's bytes cache and posted back to the main thread.
 *   The 700-element set (262 MiB loaded) took ~1 s of worker CPU per search.
 * - From the node's bytes cache: the full-form bytes are copied to the worker and loaded
 *   without inflating or expanding seeds (0.33 ms for 0.78 MiB at n = 4096, measured in
 *   `EvaluationKeys.saveFullForm`'s notes), plus the copy between threads.
 */

/** Where a worker gets keys it does not hold. */
export type StoredKeyTier = 'store' | 'bytes'

/** Units per MiB loaded from the durable store: the upload check's load plus the full-form re-save. */
export const STORE_KEY_LOAD_UNITS_PER_MIB = KEY_LOAD_UNITS_PER_MIB + 5
/** Units per MiB loaded from full-form bytes the node's cache sends with the job. */
export const BYTES_KEY_LOAD_UNITS_PER_MIB = 4

const MiB = 2 ** 20

/** Cost units of loading `loadedBytes` of stored keys into a worker from `tier`. */
export function storedKeyLoadCost(loadedBytes: number, tier: StoredKeyTier): number {
  const perMiB = tier === 'store' ? STORE_KEY_LOAD_UNITS_PER_MIB : BYTES_KEY_LOAD_UNITS_PER_MIB
  return (perMiB * Math.max(0, loadedBytes)) / MiB
}
