import { EvaluationKeys, type HeContext, HeError } from '@sealbox/he-core'
import type { CacheLease } from '../executor/KeyCache.ts'
import { type KeyUse, keyUsePartOf } from '../executor/KeyUse.ts'
import { keySetCacheKey, keySetOf } from '../executor/keySetRef.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'
import { readStoredKeySet } from './readStoredKeySet.ts'

/** Evaluate programs run in SEAL's evaluator: their keys never hold kernel words. */
const SEAL_ONLY = { countKernelWords: false }

/**
 * The deserialized keys of a stored key set under `ctx`, from the first tier that has
 * them: this worker's cache; the full-form bytes the scheduler sent from the node's
 * bytes cache (`keyBytes`); or the durable store, whose seeded upload is then re-saved
 * in full form for the node's bytes cache (`clock.fullFormKeys`). Booked as keyload
 * (store fetch) and keydeserialize. The cache key is the key set (tenant and content
 * hash: a replaced key set is a new entry, two tenants never share one) and the fingerprint.
 * (An evaluate program's keys, or a search's in SEAL: SEAL's objects; searches in the
 * key-switching kernel take `acquireSearchKeys`.) With `only`, just those keys are loaded and cached, as their own entry (`keyUsePartOf`).
 */
export async function acquireKeys(
  job: JobContext,
  ctx: HeContext,
  ref: KeyBlobRef,
  clock: PhaseClock,
  keyBytes?: Uint8Array,
  only?: KeyUse,
): Promise<CacheLease<EvaluationKeys>> {
  // A job that needs only some keys loads (and caches) just those: a search with a key set
  // of hundreds of elements loads its two, a program its rotations', never the whole set.
  const keySet = only ? keyUsePartOf(keySetOf(ref), only) : keySetOf(ref)
  const loadOptions = only
    ? { ...SEAL_ONLY, onlyGaloisElements: only.galoisElements, relinKeys: only.relinKeys }
    : SEAL_ONLY
  const loaded = { ...keySet, fingerprint: ctx.fingerprint }
  const lease = await job.keys.acquire(keySetCacheKey(loaded), async () => {
    if (keyBytes) {
      clock.keyTier = 'bytes'
      const keys = clock.time('keydeserialize', () => EvaluationKeys.load(ctx, keyBytes, loadOptions))
      return { value: keys, bytes: keys.heapBytes }
    }
    clock.keyTier = 'store'
    const decoded = await readStoredKeySet(job, ctx, ref, clock)
    return clock.time('keydeserialize', () => {
      const keys = EvaluationKeys.load(ctx, decoded, loadOptions)
      try {
        // Once per node and key set (~2 ms at n=4096): later misses load 20–30× faster.
        clock.fullFormKeys = { keySet, bytes: keys.saveFullForm(ctx.seal, decoded) }
      } catch (error) {
        keys.dispose()
        throw error
      }
      return { value: keys, bytes: keys.heapBytes }
    })
  })
  if (lease.hit) clock.keyTier = 'worker'
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  const { value } = lease
  if (!(value instanceof EvaluationKeys)) {
    // Searches cache their own form under their own key (`use`): this would be a server bug.
    lease.release()
    throw new HeError('INTERNAL', 'a worker key-cache entry for SEAL keys holds another form')
  }
  return { ...lease, value }
}
