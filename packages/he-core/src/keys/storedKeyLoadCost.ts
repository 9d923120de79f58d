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
/**
 * Units per MiB of the whole stored set (its loaded size) read from the store, hashed and
 * inflated or unpacked, when only some of its Galois keys go into SEAL. Measured (worker
 * CPU, n = 4096, packed seeded keys, a loaded 2-core VM): a search loading 2 of 24
 * elements (9.2 MiB) took 48 ms, about 37 ms of it reading and unpacking the set.
 */
export const STORE_KEY_READ_UNITS_PER_MIB = 16

const MiB = 2 ** 20

/**
 * Cost units of loading stored keys into a worker from `tier`: `loadedBytes` go into SEAL;
 * from the store, the whole set (`readBytes`, its loaded size; default `loadedBytes`) is
 * read and unpacked first.
 */
export function storedKeyLoadCost(tier: StoredKeyTier, sizes: { loadedBytes: number; readBytes?: number }): number {
  const loaded = Math.max(0, sizes.loadedBytes)
  if (tier === 'bytes') return (BYTES_KEY_LOAD_UNITS_PER_MIB * loaded) / MiB
  // The loaded keys are also read and unpacked: counted in their load's rate, not twice.
  const unread = Math.max(0, (sizes.readBytes ?? loaded) - loaded)
  return (STORE_KEY_LOAD_UNITS_PER_MIB * loaded + STORE_KEY_READ_UNITS_PER_MIB * unread) / MiB
}
