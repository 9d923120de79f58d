import { EvaluationKeys, HeError, toHeError } from '@sealbox/he-core'
import { isKernelGaloisKeyBytes, KernelGaloisKeys } from '@sealbox/he-core/search'
import type { CacheLease } from '../executor/KeyCache.ts'
import { jobKeySetOf, keySetCacheKey } from '../executor/keySetRef.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import type { JobContext, PhaseClock, WorkerKeys } from './PhaseClock.ts'
import { readStoredKeySet } from './readStoredKeySet.ts'
import type { SearchService } from './SearchService.ts'

/**
 * A search's keys for a stored key set, in the form its index runs on. When the search
 * runs in the key-switching kernel that is `KernelGaloisKeys` — the kernel's u32 words
 * of the Galois elements the search uses, and no SEAL object — from the first tier that
 * has them: this worker's cache; the kernel form the scheduler sent from the node's
 * bytes cache (`keyBytes`: a view and one pass that checks each residue, no SEAL load,
 * no seed expansion, no 64→32-bit conversion); or the durable store, whose seeded upload
 * SEAL then loads (expanding the seeds), converted once and handed back for the node's
 * bytes cache (`clock.fullFormKeys`). A search in SEAL's evaluator keeps SEAL's keys, in
 * full form in the bytes cache, as evaluate programs do. Cached under the key set's
 * `search` use, apart from an evaluate program's SEAL keys of the same key set.
 */
export async function acquireSearchKeys(
  job: JobContext,
  search: SearchService,
  ref: KeyBlobRef,
  clock: PhaseClock,
  keyBytes?: Uint8Array,
): Promise<CacheLease<WorkerKeys>> {
  const ctx = search.ctx
  const keySet = jobKeySetOf('search', ref)
  const kernel = search.index.kernel === 'keySwitch'
  const lease = await job.keys.acquire(keySetCacheKey({ ...keySet, fingerprint: ctx.fingerprint }), async () => {
    if (keyBytes) {
      clock.keyTier = 'bytes'
      return clock.time('keydeserialize', () => fromNodeBytes(search, keyBytes))
    }
    clock.keyTier = 'store'
    const decoded = await readStoredKeySet(job, ctx, ref, clock)
    return clock.time('keydeserialize', () => {
      const keys = EvaluationKeys.load(ctx, decoded, { countKernelWords: false })
      if (!kernel) {
        try {
          clock.fullFormKeys = { keySet, bytes: keys.saveFullForm(ctx.seal, decoded) }
        } catch (error) {
          keys.dispose()
          throw error
        }
        return { value: keys, bytes: keys.heapBytes }
      }
      try {
        const words = kernelFormOf(search, keys)
        clock.fullFormKeys = { keySet, bytes: words.toBytes() }
        return { value: words, bytes: words.bytes }
      } finally {
        keys.dispose()
      }
    })
  })
  if (lease.hit) clock.keyTier = 'worker'
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  return lease
}

/**
 * The kernel form of SEAL keys for `search` (only the elements it rotates by); MISSING_KEY
 * naming the rotation steps when the key set lacks one.
 */
export function kernelFormOf(search: SearchService, keys: EvaluationKeys): KernelGaloisKeys {
  keys.requireGaloisElements(search.galoisElements, `search config ${search.configId}`)
  return KernelGaloisKeys.fromSeal(search.ctx, keys, search.galoisElements)
}

/** Keys from the node's bytes cache: its own kernel form, or SEAL's full form for a search in SEAL. */
function fromNodeBytes(search: SearchService, bytes: Uint8Array): { value: WorkerKeys; bytes: number } {
  const kernel = search.index.kernel === 'keySwitch'
  try {
    if (isKernelGaloisKeyBytes(bytes)) {
      if (!kernel) throw new HeError('INTERNAL', 'kernel-form keys sent to a search that runs in SEAL')
      const words = KernelGaloisKeys.fromBytes(search.ctx, bytes)
      return { value: words, bytes: words.bytes }
    }
    const keys = EvaluationKeys.load(search.ctx, bytes, { countKernelWords: false })
    if (!kernel) return { value: keys, bytes: keys.heapBytes }
    try {
      const words = kernelFormOf(search, keys)
      return { value: words, bytes: words.bytes }
    } finally {
      keys.dispose()
    }
  } catch (error) {
    // The node made these bytes: a fault in them is the server's, not the client's.
    const cause = toHeError(error)
    if (cause.code === 'MISSING_KEY') throw cause
    throw new HeError('INTERNAL', `the node's cached keys did not load: ${cause.message}`, { cause })
  }
}
