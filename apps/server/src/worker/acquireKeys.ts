import type { HeContext } from '@sealbox/he-core'
import type { CacheLease } from '../executor/KeyCache.ts'
import type { KeyBlobRef } from '../store/KeyStore.ts'
import { decodeKeySet, EvaluationKeys } from './EvaluationKeys.ts'
import type { JobContext, PhaseClock } from './PhaseClock.ts'

/**
 * The deserialized keys of a stored key set under `ctx`, from the first tier that has
 * them: this worker's cache; the full-form bytes the scheduler sent from the node's
 * bytes cache (`keyBytes`); or the durable store, whose seeded upload is then re-saved
 * in full form for the node's bytes cache (`clock.fullFormKeys`). Booked as keyload
 * (store fetch) and keydeserialize. The cache key holds the tenant and the content
 * hash: a replaced key set is a new entry, and two tenants never share one.
 */
export async function acquireKeys(
  job: JobContext,
  ctx: HeContext,
  ref: KeyBlobRef,
  clock: PhaseClock,
  keyBytes?: Uint8Array,
): Promise<CacheLease<EvaluationKeys>> {
  const lease = await job.keys.acquire(`${ref.tenant}/${ref.sha256}/${ctx.fingerprint}`, async () => {
    if (keyBytes) {
      clock.keyTier = 'bytes'
      const keys = clock.time('keydeserialize', () =>
        EvaluationKeys.load(ctx, decodeKeySet(keyBytes, { fingerprint: ctx.fingerprint })),
      )
      return { value: keys, bytes: keys.heapBytes }
    }
    clock.keyTier = 'store'
    const bytes = await clock.timeAsync('keyload', () => job.reader.read(ref))
    return clock.time('keydeserialize', () => {
      const decoded = decodeKeySet(bytes, { fingerprint: ctx.fingerprint })
      const keys = EvaluationKeys.load(ctx, decoded)
      try {
        // Once per node and key set (~2 ms at n=4096): later misses load 20–30× faster.
        clock.fullFormKeys = { key: `${ref.tenant}/${ref.sha256}`, bytes: keys.saveFullForm(ctx.seal, decoded) }
      } catch (error) {
        keys.dispose()
        throw error
      }
      return { value: keys, bytes: keys.heapBytes }
    })
  })
  if (lease.hit) clock.keyTier = 'worker'
  clock.keyCache = lease.hit ? 'hit' : 'miss'
  return lease
}
